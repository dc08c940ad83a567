build-t/common/serve/dirs.o: common/serve/dirs.c common/base/log.h \
 common/base/strv.h common/policy/policy.h common/base/err.h \
 common/policy/subject.h common/serve/dirs.h common/serve/server.h \
 common/base/buf.h common/protocol/tools.h
common/base/log.h:
common/base/strv.h:
common/policy/policy.h:
common/base/err.h:
common/policy/subject.h:
common/serve/dirs.h:
common/serve/server.h:
common/base/buf.h:
common/protocol/tools.h:
