set(TB_MODULE_SOURCES errors.cpp hostmemory.cpp processenv.cpp regularfile.cpp shape.cpp tensor.cpp)
