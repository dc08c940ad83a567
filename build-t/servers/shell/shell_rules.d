build-t/servers/shell/shell_rules.o: servers/shell/shell_rules.c \
 common/base/strv.h common/base/text.h common/base/buf.h \
 common/policy/glob.h servers/shell/shell.h common/base/err.h \
 common/policy/policy.h common/policy/subject.h common/protocol/tools.h
common/base/strv.h:
common/base/text.h:
common/base/buf.h:
common/policy/glob.h:
servers/shell/shell.h:
common/base/err.h:
common/policy/policy.h:
common/policy/subject.h:
common/protocol/tools.h:
