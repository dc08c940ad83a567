build-t/common/audit/audit-args.o: common/audit/audit-args.c \
 common/audit/audit.h common/base/err.h common/policy/policy.h \
 common/policy/subject.h common/base/json.h common/base/buf.h \
 common/base/text.h common/protocol/tools.h
common/audit/audit.h:
common/base/err.h:
common/policy/policy.h:
common/policy/subject.h:
common/base/json.h:
common/base/buf.h:
common/base/text.h:
common/protocol/tools.h:
