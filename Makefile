# ptm - one Makefile. Targets: all check demo bench fuzz asan tsan install clean.
#   make SANITIZE=address,undefined check   the suite under sanitizers
#   make fuzz FUZZ_SECONDS=600              the parser fuzzer (clang)

PREFIX  ?= /usr/local
DESTDIR ?=
CC      ?= cc
CFLAGS  ?= -O2 -g
SANITIZE ?=

WARN     = -std=c11 -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes
GENWARN  = -std=c11 -Wall -Wno-unused-function -Wno-sign-compare -Wno-unused-parameter
PKGS     =
PKG_CFLAGS := $(if $(PKGS),$(shell pkg-config --cflags $(PKGS)))
PKG_LIBS   := $(if $(PKGS),$(shell pkg-config --libs $(PKGS)))
CHECK_CFLAGS = $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS   = $(shell pkg-config --libs check 2>/dev/null)

ifeq ($(SANITIZE),)
B = build/default
else
B = build/$(subst $(comma),-,$(SANITIZE))
SANFLAGS = -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
endif
comma := ,

CPPFLAGS += -D_POSIX_C_SOURCE=200809L -Ilang -I$(B)/gen $(PKG_CFLAGS)
ALL_CFLAGS = $(CFLAGS) $(SANFLAGS) -MMD -MP
LDLIBS  += $(PKG_LIBS) -lm

LANG_SRC = lang/arena.c lang/diag.c lang/ast.c lang/ptm.c
GEN_SRC  = $(B)/gen/parser.c $(B)/gen/lexer.c
LIB_OBJ  = $(LANG_SRC:%.c=$(B)/%.o) $(B)/gen/parser.o $(B)/gen/lexer.o
CLI_OBJ  = $(B)/cli/ptm.o
TESTS    = $(B)/tests/test_lang

ifeq ($(SANITIZE),)
PTM = bin/ptm
else
PTM = $(B)/ptm
endif

.PHONY: all check test demo bench fuzz fuzz-build asan tsan install uninstall clean deps
.DELETE_ON_ERROR:

all: $(PTM)

deps:
	@scripts/deps.sh

$(PTM): $(LIB_OBJ) $(CLI_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(B)/gen/parser.c $(B)/gen/parser.h: lang/parser.y
	@mkdir -p $(B)/gen
	bison -Wall -Werror -o $(B)/gen/parser.c --header=$(B)/gen/parser.h $<

$(B)/gen/lexer.c: lang/lexer.l
	@mkdir -p $(B)/gen
	flex -o $@ $<

$(B)/gen/%.o: $(B)/gen/%.c $(B)/gen/parser.h
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(GENWARN) -c -o $@ $<

$(B)/%.o: %.c $(B)/gen/parser.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(WARN) -c -o $@ $<

$(B)/tests/%.o: tests/%.c $(B)/gen/parser.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CHECK_CFLAGS) $(ALL_CFLAGS) $(WARN) -c -o $@ $<

$(B)/tests/test_%: $(B)/tests/test_%.o $(LIB_OBJ)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(CHECK_LIBS) $(LDLIBS)

# check: install what is missing, build, run every test.
check: deps
	@$(MAKE) --no-print-directory test

test: $(PTM) $(TESTS)
	@for t in $(TESTS); do echo "== $$t"; $$t || exit 1; done
	@echo "== tests/cli.sh"; PTM=$(PTM) sh tests/cli.sh

asan:
	$(MAKE) check SANITIZE=address,undefined

tsan:
	$(MAKE) check SANITIZE=thread

demo: deps
	@$(MAKE) --no-print-directory all
	@sh scripts/demo.sh $(PTM)

# bench: results go to bench/RESULTS.md with the commands that made them.
bench: deps
	@$(MAKE) --no-print-directory all
	@bash bench/run.sh $(PTM)

# fuzz: libFuzzer over the parser, seeded from examples/ (needs clang).
FUZZ_SECONDS ?= 60
FUZZ_CC ?= clang
FUZZ_B = build/fuzz
FUZZ_SRC = $(LANG_SRC) $(FUZZ_B)/gen/parser.c $(FUZZ_B)/gen/lexer.c

$(FUZZ_B)/gen/parser.c $(FUZZ_B)/gen/parser.h: lang/parser.y
	@mkdir -p $(FUZZ_B)/gen
	bison -Wall -Werror -o $(FUZZ_B)/gen/parser.c --header=$(FUZZ_B)/gen/parser.h $<
$(FUZZ_B)/gen/lexer.c: lang/lexer.l
	@mkdir -p $(FUZZ_B)/gen
	flex -o $@ $<
$(FUZZ_B)/fuzz_parse: tests/fuzz_parse.c $(FUZZ_SRC) $(FUZZ_B)/gen/parser.h lang/*.h
	$(FUZZ_CC) -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	  -D_POSIX_C_SOURCE=200809L -Ilang -I$(FUZZ_B)/gen -o $@ tests/fuzz_parse.c $(FUZZ_SRC) -lm

fuzz-build: $(FUZZ_B)/fuzz_parse

fuzz:
	@scripts/deps.sh --fuzz
	@$(MAKE) --no-print-directory fuzz-build
	@mkdir -p $(FUZZ_B)/corpus
	cp examples/*/*.ptm tests/fuzz/parse/* $(FUZZ_B)/corpus/ 2>/dev/null || true
	$(FUZZ_B)/fuzz_parse -max_total_time=$(FUZZ_SECONDS) -max_len=4096 \
	  -dict=tests/fuzz/ptm.dict -artifact_prefix=$(FUZZ_B)/ $(FUZZ_B)/corpus

install: $(PTM)
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(PTM) $(DESTDIR)$(PREFIX)/bin/ptm

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/ptm

clean:
	rm -rf build bin

-include $(shell find build -name '*.d' 2>/dev/null)
