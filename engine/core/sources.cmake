set(TB_MODULE_SOURCES datadirectory.cpp errors.cpp processenv.cpp processmemory.cpp runid.cpp shape.cpp
                      tensor.cpp)
