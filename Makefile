# stackprobe: `make run` and `make test` set up what is missing on a fresh Debian
# machine (system packages with apt-get, Python packages in .venv), then run.

PYTHON      ?= python3
VENV        := .venv
VPY         := $(VENV)/bin/python
STACKPROBE  := $(VENV)/bin/stackprobe

# The packages of the tools the step kinds declare (kinds/*/), of the monitor, fleet and
# target guard (engine/tools.py), of the labs, and what only tests use (Chromium, parted,
# mkfs.ext4, strace, and tmux: the terminal tests/test_live_tmux.py watches live lines in).
# tests/test_kind_contract.py checks these lists against those declarations. `make run`
# installs only APT_QUICK, what the quick suite needs, so the first command stays quick as
# the rungs grow; `make test` and `make deps-all` install everything.
APT_QUICK    := fio sysstat sysbench util-linux procps iproute2 dmidecode
APT_MORE     := stress-ng mbw iperf3 findutils iputils-ping openssh-server openssh-client \
                ceph-mon ceph-mgr ceph-osd ceph-mds ceph-common ceph-fuse chromium \
                parted e2fsprogs strace tmux hpcc openmpi-bin libopenblas0-pthread libblas3 openipmi \
                ipmitool perftest netpipe-openmpi ethtool infiniband-diags smartmontools nvme-cli
APT_PACKAGES := $(APT_QUICK) $(APT_MORE)
APT          ?= $(APT_PACKAGES)

# The tests start `python -m stackprobe` hundreds of times: with compiled modules kept
# (__pycache__, git-ignored) each start skips compiling ~450 modules, 0.4 s, even where the
# environment sets PYTHONDONTWRITEBYTECODE. Pytest keeps its rewritten test modules the same way.
BYTECODE     := env -u PYTHONDONTWRITEBYTECODE

.PHONY: run test test-fast deps deps-all system-deps keep-default-blas venv dist clean

run: APT = $(APT_QUICK)
run: deps
	$(STACKPROBE) run

# Everything: the real tools, the lab Ceph cluster, hosts in network namespaces, Chromium,
# the benchmarks' short modes. What CI runs. Both tiers at once (tests/run_tiers.py):
# everything with a system marker one test at a time in front — the labs share one subnet
# and the two cores with Ceph, and most of these tests judge measured figures (an SLO, a
# ratio, a spread), which a second test running beside them would move — and the
# pure-Python tier beside it at nice 19 on both cores (pytest-xdist), in the time the
# system tests spend waiting on the tools. The wheel and sdist are built by their own test,
# beside the system tests (tests/test_wheel.py), not before them.
test: deps
	$(VPY) -m ruff check src tests bench
	$(BYTECODE) $(VPY) -m compileall -q src tests bench >/dev/null
	$(BYTECODE) $(VPY) tests/run_tiers.py

# What needs no root, no apt, no network namespace, no Ceph and no Chromium (Python
# packages only), in under two minutes: the tests without a system marker, with the tools
# `make` installs shadowed by failing stubs (tests/conftest.py) and fewer fuzz examples.
test-fast: venv
	$(VPY) -m ruff check src tests bench
	$(BYTECODE) $(VPY) -m compileall -q src tests bench >/dev/null
	$(BYTECODE) STACKPROBE_TEST_TIER=fast STACKPROBE_FUZZ_EXAMPLES=10 $(VPY) -m pytest -q -m "not system" -n 2 --dist worksteal

deps: system-deps venv

deps-all: deps

# The wheel and sdist `pip install` takes: the CLI and its Python dependencies alone, no
# system package (tests/test_wheel.py builds both the same way and installs the wheel).
dist: venv
	rm -rf dist
	$(VPY) -m build -q --outdir dist . >/dev/null

# Installs only what dpkg says is missing, so a second `make` costs a second. A temporary
# policy-rc.d keeps the packages' services (sshd, Ceph daemons) from being started: stackprobe
# starts its own, by PID.
system-deps:
	@missing=""; for p in $(APT); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if ! $(PYTHON) -c 'import venv, ensurepip' 2>/dev/null; then missing="$$missing python3-venv"; fi; \
	if [ -n "$$missing" ]; then \
	  echo "apt-get install -y$$missing"; \
	  policy=""; if [ ! -e /usr/sbin/policy-rc.d ]; then \
	    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d && policy=1; fi; \
	  blas=$$(update-alternatives --get-selections | awk '$$1 ~ /^libblas\.so\.3/ {print $$1, $$3}'); \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	  rc=$$?; [ -z "$$policy" ] || rm -f /usr/sbin/policy-rc.d; [ $$rc -eq 0 ] || exit $$rc; \
	  $(MAKE) --no-print-directory keep-default-blas BLAS_BEFORE="$$blas"; \
	fi

# OpenBLAS is installed for hpcc alone (kinds/hpc/hpcc_run.py puts it on hpcc's own
# LD_LIBRARY_PATH); its higher alternatives priority would make it every program's
# libblas.so.3. This puts the machine's choice back: the one it had before the install, or
# the reference BLAS when the install brought the first BLAS.
keep-default-blas:
	@for name in $$(update-alternatives --get-selections | awk '$$1 ~ /^libblas\.so\.3/ {print $$1}'); do \
	  want=$$(printf '%s\n' "$(BLAS_BEFORE)" | awk -v n=$$name '$$1 == n {print $$2}'); \
	  [ -n "$$want" ] || want=$$(update-alternatives --list $$name | grep '/blas/libblas\.so\.3$$' | head -1); \
	  now=$$(update-alternatives --query $$name | awk '/^Value:/ {print $$2}'); \
	  if [ -n "$$want" ] && [ "$$want" != "$$now" ]; then \
	    echo "update-alternatives --set $$name $$want  (the machine's BLAS before OpenBLAS came for hpcc)"; \
	    update-alternatives --quiet --set $$name $$want; \
	  fi; \
	done

venv: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	test -x $(VPY) || $(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install -q --upgrade pip
	$(VPY) -m pip install -q -e '.[test]'
	touch $@

clean:
	rm -rf $(VENV) build dist src/*.egg-info .pytest_cache
