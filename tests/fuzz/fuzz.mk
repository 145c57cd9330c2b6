# tests/fuzz/fuzz.mk - h5ufunc's libFuzzer targets; the Makefile includes it.
#
#   make fuzz         build build/fuzz/fuzz_recipe (recipe parser + planner +
#                     error display), build/fuzz/fuzz_expr (expression
#                     parser) and build/fuzz/fuzz_chunkindex (the chunk
#                     index reader's object header and B-tree parser, on a
#                     file's bytes) with clang -fsanitize=fuzzer,address,undefined
#   make fuzz-check   run each target for FUZZ_SECONDS (default 20) on its
#                     seed corpus; fails on the first crash, leak, hang or
#                     undefined behaviour.  `make check` runs it first
#                     (FUZZ_SECONDS=0 leaves it out).
#   make fuzz-long    the longer run, one command: FUZZ_SECONDS=3600 by
#                     default, FUZZ_TARGETS to pick targets; what it finds is
#                     kept in build/fuzz/corpus-NAME and grows run after run.
#
# The seed corpus is made in build/fuzz/seeds-NAME from files of the tree:
# for fuzz_recipe every recipe in recipes/ and tests/recipe-cases/, every
# r.yaml and stdin of tests/bad-input/ (a case's setup script makes its own
# large inputs; those are not seeds) and tests/fuzz/regressions/*.yaml, the
# inputs that once crashed it, replayed on every run; for fuzz_expr each
# line of tests/fuzz/expressions; for fuzz_chunkindex small h5py files
# behind the header it reads (tests/fuzz/chunkindex_seeds.py).  The
# dictionaries tests/fuzz/recipe.dict, expr.dict and chunkindex.dict give
# each target its words.  fuzz_recipe runs in
# build/fuzz/work, which holds the bad-input fixtures (f.h5, e.h5, made by
# tests/np.py), so that recipes naming them reach the planner's checks of
# real datasets; nothing is written there.  A crash leaves
# build/fuzz/crash-NAME-HASH; replay it with
#   (cd build/fuzz/work && ../fuzz_recipe ../crash-fuzz_recipe-HASH)
# and, once fixed, make it a case of tests/bad-input (or a test in tests/)
# and keep it in tests/fuzz/regressions.
#
# It is not the SANITIZE=1 build: that one is the whole program built with
# mpicc under ASan and UBSan, for the Bats suite.

FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 20
FUZZ_TARGETS ?= fuzz_recipe fuzz_expr fuzz_chunkindex
FUZZ_DIR      = build/fuzz
FUZZ_SAN      = -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS   = -O1 -g $(FUZZ_SAN) -fsanitize=fuzzer-no-link
FUZZ_LIBSRC   = $(filter-out src/main.c,$(sort $(wildcard src/*.c)))
FUZZ_LIBOBJ   = $(FUZZ_LIBSRC:src/%.c=$(FUZZ_DIR)/obj/%.o)
FUZZ_BIN      = $(FUZZ_TARGETS:%=$(FUZZ_DIR)/%)
# libFuzzer's options for every run: inputs up to 64 KiB, 10 s per input at
# most, stderr closed (h5ufunc's messages; sanitizer reports still show).
FUZZ_OPTS     = -max_len=65536 -timeout=10 -rss_limit_mb=2048 -close_fd_mask=2 \
		-print_final_stats=1

fuzz: $(FUZZ_BIN)

# The type loops run no part of what is fuzzed (nothing is executed), and
# instrumented they take minutes to compile: plain -O0 for them.
$(FUZZ_DIR)/obj/loops_%.o: FUZZ_CFLAGS = -O0 -g

$(FUZZ_DIR)/obj/%.o: src/%.c | $(FUZZ_DIR)/obj
	@echo "  CC    $< (fuzz)"
	$(Q)$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_CFLAGS) $(WARN) -Wno-unknown-pragmas -DH5UFUNC_VERSION='"$(VERSION)"' \
		-MMD -MP -c -o $@ $<

$(FUZZ_DIR)/%: tests/fuzz/%.c $(FUZZ_LIBOBJ)
	@echo "  LD    $@"
	$(Q)$(FUZZ_CC) $(CPPFLAGS) -O1 -g $(FUZZ_SAN) -fsanitize=fuzzer $(WARN) \
		-o $@ $< $(FUZZ_LIBOBJ) $(LDLIBS)

$(FUZZ_DIR)/obj:
	$(Q)mkdir -p $@

-include $(FUZZ_LIBOBJ:.o=.d)
# Built by a pattern rule for a pattern rule: kept, not deleted as
# intermediate files.
.SECONDARY: $(FUZZ_LIBOBJ)

# Seeds, made afresh on every run from the files of the tree.
fuzz-seeds: | $(FUZZ_DIR)/obj
	$(Q)rm -rf $(FUZZ_DIR)/seeds-fuzz_recipe $(FUZZ_DIR)/seeds-fuzz_expr $(FUZZ_DIR)/seeds-fuzz_chunkindex
	$(Q)mkdir -p $(FUZZ_DIR)/seeds-fuzz_recipe $(FUZZ_DIR)/seeds-fuzz_expr \
		$(FUZZ_DIR)/seeds-fuzz_chunkindex $(FUZZ_DIR)/work
	$(Q)/usr/bin/python3 tests/fuzz/chunkindex_seeds.py $(FUZZ_DIR)/seeds-fuzz_chunkindex
	$(Q)for f in recipes/*.yaml tests/recipe-cases/*.yaml tests/bad-input/*/r.yaml \
			tests/bad-input/*/stdin tests/fuzz/regressions/*.yaml; do \
		[ -f "$$f" ] && cp "$$f" "$(FUZZ_DIR)/seeds-fuzz_recipe/$$(echo "$$f" | tr / _)"; \
	done; true
	$(Q)n=0; while IFS= read -r line; do \
		n=$$((n + 1)); printf '%s' "$$line" > "$(FUZZ_DIR)/seeds-fuzz_expr/line-$$n"; \
	done < tests/fuzz/expressions
	$(Q)[ -f $(FUZZ_DIR)/work/f.h5 ] && [ $(FUZZ_DIR)/work/f.h5 -nt tests/bad-input/fixtures ] || \
		(cd $(FUZZ_DIR)/work && /usr/bin/python3 ../../../tests/np.py < ../../../tests/bad-input/fixtures)

# fuzz-run: each target of FUZZ_TARGETS for FUZZ_SECONDS on its seeds and
# its kept corpus, in build/fuzz/work, stdin closed.
fuzz-run: fuzz fuzz-seeds
	$(Q)set -e; for t in $(FUZZ_TARGETS); do \
		mkdir -p $(FUZZ_DIR)/corpus-$$t; \
		echo "  FUZZ  $$t for $(FUZZ_SECONDS) s"; \
		(cd $(FUZZ_DIR)/work && ../$$t $(FUZZ_OPTS) -max_total_time=$(FUZZ_SECONDS) \
			-dict=../../../tests/fuzz/$${t#fuzz_}.dict \
			-artifact_prefix=../crash-$$t- ../corpus-$$t ../seeds-$$t </dev/null \
			>../$$t.log 2>&1) || { tail -n 60 $(FUZZ_DIR)/$$t.log; exit 1; }; \
		grep -E '^stat::number_of_executed_units|^Done' $(FUZZ_DIR)/$$t.log | tr '\n' ' '; echo; \
	done

fuzz-check:
	$(Q)if [ "$(FUZZ_SECONDS)" != 0 ]; then $(MAKE) --no-print-directory fuzz-run; fi

fuzz-long:
	$(Q)$(MAKE) --no-print-directory fuzz-run FUZZ_SECONDS=$(if $(filter command line,$(origin FUZZ_SECONDS)),$(FUZZ_SECONDS),3600)

check: fuzz-check
fuzz-check: deps

.PHONY: fuzz fuzz-seeds fuzz-run fuzz-check fuzz-long
