# SPDX-License-Identifier: GPL-2.0
#
# sched-workloads: the two commands.
#
#   make run    install what the battery needs, build it, run it against
#               the running kernel (root): KTAP verdicts, results/ directory
#   make test   install what the tests need, build with -Werror, style
#               gate, then the collection's tests
#
# Also: contribute (a program to a reproducer with its breaker and
# baseline: NAME=<name> CMD="<command>" or TRACE=<trace.dat>, options of
# "sched-workloads contribute" in CONTRIBUTE_ARGS), harness, build, build-asan, style,
# metrics-doc, detectable-doc (the documentation's generated lists), clean, bench (what the trace
# analyzer costs, in figures: bench/bench.py; BENCH_ARGS=... to it), and
# fuzz (each libFuzzer harness for FUZZ_SECONDS, default 900; then
# fuzz-merge keeps what they found in the committed corpora; fuzz-replay
# runs the corpora once, as the tests do).
#
#   KSRC=<kernel tree>   take the kselftest harness and checkpatch from it
#                        instead of Debian's linux-source package
#   O=<dir>              build out of tree, into <dir>/kselftest/sched-workloads
#                        (as kselftest's own O= does)
#   RUN_ARGS=...         passed to "sched-workloads run" (make run)
#   WERROR=1             warnings are errors (make build)

SW_DIR := tools/testing/selftests/sched-workloads
SW_DESK := tools/testing/sched-workloads

ifeq ($(O),)
SW_OUT := $(CURDIR)/$(SW_DIR)
SW_RUN_W :=
else
SW_OUT := $(abspath $(O))/kselftest/sched-workloads
# kselftest copies workloads/ next to the binary only at run_tests/install.
SW_RUN_W := -w $(CURDIR)/$(SW_DIR)/workloads -B $(CURDIR)/$(SW_DIR)/baselines
endif
SW_BIN := $(SW_OUT)/sched-workloads
ASAN_OUT := $(CURDIR)/build/asan/sched-workloads
ASAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer

# checkpatch: from KSRC, else from the harness cache of ksft-harness.sh.
SW_HARNESS_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/sched-workloads/harness
ifneq ($(KSRC),)
CHECKPATCH ?= $(KSRC)/scripts/checkpatch.pl
else
CHECKPATCH ?= $(lastword $(sort $(wildcard $(SW_HARNESS_CACHE)/linux-source-*/scripts/checkpatch.pl)))
endif

# Debian's python3: the python3-* packages deps.sh installs are its
# modules; another python3 first in PATH (pyenv's, a venv) lacks them.
PYTHON ?= $(firstword $(wildcard /usr/bin/python3) python3)

# Extra checkpatch options, e.g. --ignore TYPE,TYPE
CHECKPATCH_FLAGS ?=
RUN_ARGS ?=
WERROR ?=
# The kselftest lib.mk defaults OUTPUT only at MAKELEVEL 0: always pass it.
SW_MAKE = $(MAKE) --no-print-directory -C $(SW_DIR) OUTPUT=$(SW_OUT)

# The documentation, a directory of rst files; two of them hold lists
# generated from the tool (metrics-doc, detectable-doc).
SW_DOC_DIR := Documentation/dev-tools/sched-workloads
SW_METRICS_DOC := $(SW_DOC_DIR)/metrics.rst
SW_DETECTABLE_DOC := $(SW_DOC_DIR)/baselines.rst

.PHONY: run test harness build build-asan style clean deps-run deps-test \
	metrics-doc detectable-doc bench fuzz fuzz-run fuzz-replay fuzz-merge \
	contribute

run:
	$(SW_DESK)/deps.sh run
	@$(MAKE) --no-print-directory build
	@rc=0; $(SW_BIN) run $(SW_RUN_W) $(RUN_ARGS) || rc=$$?; \
	if [ $$rc -ne 0 ]; then \
		echo "make run: sched-workloads exited $$rc (see sched-workloads --help)" >&2; \
	fi; exit $$rc

test:
	$(SW_DESK)/deps.sh test
	@$(MAKE) --no-print-directory build WERROR=1
	@$(MAKE) --no-print-directory style
	SW_BINARY=$(SW_BIN) $(PYTHON) $(SW_DIR)/tests/run_tests.py

CONTRIBUTE_ARGS ?=
contribute:
	@test -n "$(NAME)" && test -n "$(CMD)$(TRACE)" || { \
		echo 'contribute: give NAME=<name> and CMD="<command>" or TRACE=<trace.dat>' >&2; \
		exit 2; }
	$(SW_DESK)/deps.sh run
	@$(MAKE) --no-print-directory build
	$(SW_BIN) contribute $(CONTRIBUTE_ARGS) \
		$(if $(TRACE),--trace $(TRACE)) $(NAME) $(if $(CMD),-- $(CMD))

BENCH_ARGS ?=
bench:
	$(SW_DESK)/deps.sh run
	@$(MAKE) --no-print-directory build
	SW_BINARY=$(SW_BIN) $(PYTHON) $(SW_DIR)/bench/bench.py $(BENCH_ARGS)

# The harnesses need clang and libFuzzer: the test profile installs them.
FUZZ_SECONDS ?= 900
FUZZ_MAKE = $(MAKE) --no-print-directory -C $(SW_DIR)/fuzz OUT=$(CURDIR)/build/fuzz
fuzz: fuzz-run
fuzz-run fuzz-replay fuzz-merge:
	$(SW_DESK)/deps.sh test
	@mkdir -p build && echo '*' > build/.gitignore
	@$(FUZZ_MAKE) $(@:fuzz-%=%) FUZZ_SECONDS=$(FUZZ_SECONDS)

deps-run deps-test:
	$(SW_DESK)/deps.sh $(@:deps-%=%)

harness:
	KSRC="$(KSRC)" $(SW_DESK)/ksft-harness.sh

build: harness
	@mkdir -p $(SW_OUT)
	$(SW_MAKE) WERROR=$(WERROR)

# The same sources under ASan and UBSan, apart from the normal build: point
# the tests at it with SW_BINARY=build/asan/sched-workloads/sched-workloads.
build-asan: harness
	@mkdir -p $(ASAN_OUT)
	@echo '*' > build/.gitignore
	$(MAKE) --no-print-directory -C $(SW_DIR) OUTPUT=$(ASAN_OUT) WERROR=1 \
		USERCFLAGS="$(ASAN_FLAGS)" USERLDFLAGS="$(ASAN_FLAGS)"
	@ln -sfn $(CURDIR)/$(SW_DIR)/workloads $(ASAN_OUT)/workloads

style:
	@test -n "$(CHECKPATCH)" && test -f "$(CHECKPATCH)" || { \
		echo "style: no checkpatch.pl: run 'make harness' (or set KSRC= or CHECKPATCH=)" >&2; \
		exit 1; }
	@echo "  CHECKPATCH $(SW_DIR)"
	@out=$$(find $(SW_DIR) $(SW_DESK) -name '*.[ch]' | sort | \
		xargs perl $(CHECKPATCH) --no-tree -f --terse --show-types $(CHECKPATCH_FLAGS) 2>&1); rc=$$?; \
	bad=$$(echo "$$out" | grep -E ': (ERROR|WARNING):'); \
	if [ -n "$$bad" ] || [ $$rc -ne 0 ]; then \
		echo "$$out" >&2; echo "style: checkpatch is not clean" >&2; exit 1; \
	fi
	@echo "  LAYERS $(SW_DIR)"
	@$(PYTHON) $(SW_DIR)/tests/check_layers.py $(SW_DIR)
	@echo "  SHELLCHECK"
	@find $(SW_DESK) $(SW_DIR) -name '*.sh' | sort | xargs shellcheck .ci/run
	@echo "  FLAKE8"
	@find $(SW_DESK) $(SW_DIR) .ci -name '*.py' -not -path '*/results/*' | sort | \
		xargs -r flake8

# The metric list of the documentation: the output of "sched-workloads
# metrics" between the ".. metrics-begin" and ".. metrics-end" lines.
metrics-doc: build
	$(SW_BIN) metrics | awk ' \
		FNR == NR { m[n++] = $$0; next } \
		/^\.\. metrics-end/ { skip = 0 } \
		skip { next } \
		{ print } \
		/^\.\. metrics-begin/ { \
			print ""; print "::"; print ""; \
			for (i = 0; i < n; i++) print "  " m[i]; \
			print ""; skip = 1 }' - $(SW_METRICS_DOC) > $(SW_METRICS_DOC).tmp
	mv $(SW_METRICS_DOC).tmp $(SW_METRICS_DOC)

# The detectable effect of every baseline check against each committed
# baseline directory (a class, or a platform of it), pasted into the
# documentation's page of the committed baselines.
detectable-doc: build
	cd $(SW_DIR) && export LC_ALL=C && for d in $$(find baselines -name '*.json' \
		! -name qualification.json -exec dirname {} \; | sort -u); do \
		printf '``%s``::\n\n' "$${d#baselines/}"; \
		$(SW_BIN) check -d "$$d" workloads/*.json | sed -n 's/^    /  /p'; \
		echo; \
	done > $(CURDIR)/$(SW_DETECTABLE_DOC).table
	awk ' \
		FNR == NR { m[n++] = $$0; next } \
		/^\.\. detectable-end/ { skip = 0 } \
		skip { next } \
		{ print } \
		/^\.\. detectable-begin/ { \
			print ""; \
			for (i = 0; i < n; i++) print m[i]; \
			skip = 1 }' $(SW_DETECTABLE_DOC).table $(SW_DETECTABLE_DOC) \
		> $(SW_DETECTABLE_DOC).tmp
	rm -f $(SW_DETECTABLE_DOC).table
	mv $(SW_DETECTABLE_DOC).tmp $(SW_DETECTABLE_DOC)

clean:
	rm -f $(SW_BIN)
	rm -rf build
