set(TB_MODULE_SOURCES shape.cpp tensor.cpp errors.cpp)
