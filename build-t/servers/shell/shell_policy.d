build-t/servers/shell/shell_policy.o: servers/shell/shell_policy.c \
 common/base/strv.h common/base/text.h common/base/buf.h \
 common/policy/glob.h common/policy/policy.h common/base/err.h \
 common/policy/subject.h common/policy/section.h common/sandbox/pids.h \
 servers/shell/shell.h common/protocol/tools.h
common/base/strv.h:
common/base/text.h:
common/base/buf.h:
common/policy/glob.h:
common/policy/policy.h:
common/base/err.h:
common/policy/subject.h:
common/policy/section.h:
common/sandbox/pids.h:
servers/shell/shell.h:
common/protocol/tools.h:
