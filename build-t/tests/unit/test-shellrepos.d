build-t/tests/unit/test-shellrepos.o: tests/unit/test-shellrepos.c \
 tests/lib/tap.h servers/shell/shell.h common/base/err.h \
 common/policy/policy.h common/policy/subject.h common/protocol/tools.h \
 common/base/buf.h
tests/lib/tap.h:
servers/shell/shell.h:
common/base/err.h:
common/policy/policy.h:
common/policy/subject.h:
common/protocol/tools.h:
common/base/buf.h:
