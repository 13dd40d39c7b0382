set(TB_MODULE_SOURCES cachefile.cpp jsontext.cpp safetensors.cpp)
