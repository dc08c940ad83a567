build-t/servers/shell/shell_repos.o: servers/shell/shell_repos.c \
 common/policy/glob.h common/policy/policy.h common/base/err.h \
 common/policy/subject.h common/sandbox/profile.h servers/shell/shell.h \
 common/protocol/tools.h common/base/buf.h
common/policy/glob.h:
common/policy/policy.h:
common/base/err.h:
common/policy/subject.h:
common/sandbox/profile.h:
servers/shell/shell.h:
common/protocol/tools.h:
common/base/buf.h:
