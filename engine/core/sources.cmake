set(TB_MODULE_SOURCES datadirectory.cpp enginelocation.cpp errors.cpp floatenv.cpp hostmemory.cpp
                      processenv.cpp processmemory.cpp regularfile.cpp runid.cpp shape.cpp
                      smoothing.cpp tensor.cpp textformat.cpp)
