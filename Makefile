# stdiogate: keep a stdio server's startup chatter off its protocol stream.
VERSION  = 0.1.0
PREFIX  ?= /usr/local
DESTDIR ?=
CC      ?= cc
CFLAGS  ?= -O2 -g
WARN     = -Wall -Wextra -Werror
LIB      = libstdiogate.so

all: $(LIB)

$(LIB): shim.c detect.h
	$(CC) $(CFLAGS) $(WARN) -D_GNU_SOURCE -fPIC -shared -fvisibility=hidden \
		-o $@ shim.c -ldl

include tests/fixtures.mk
# Fragments add their own targets and append to TEST_DEPS.
TEST_DEPS = all fixtures
-include $(filter-out tests/fixtures.mk,$(wildcard tests/*.mk bench/*.mk fuzz/*.mk))

test: $(TEST_DEPS)
	bats tests

clean:
	rm -rf $(LIB) tests/bin

.PHONY: all test clean
