set(TB_MODULE_SOURCES errors.cpp processenv.cpp shape.cpp tensor.cpp)
