"""Built-in settings profiles: YAML files, one per profile, read by
stackprobe/spec/settings_profile.py (docs/settings.md, "Profiles"). No code lives here."""
