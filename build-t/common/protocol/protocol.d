build-t/common/protocol/protocol.o: common/protocol/protocol.c \
 common/base/err.h common/base/json.h common/base/buf.h common/base/log.h \
 common/protocol/protocol.h common/base/text.h
common/base/err.h:
common/base/json.h:
common/base/buf.h:
common/base/log.h:
common/protocol/protocol.h:
common/base/text.h:
