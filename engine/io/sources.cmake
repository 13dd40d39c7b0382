set(TB_MODULE_SOURCES safetensors.cpp)
