"""The Ceph configuration review: pure rules on a ClusterConfig (parsers/ceph/), each with
the Ceph documentation section it rests on (docs/ceph.md lists them)."""
