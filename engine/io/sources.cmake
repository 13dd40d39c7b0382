set(TB_MODULE_SOURCES jsontext.cpp safetensors.cpp)
