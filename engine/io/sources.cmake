set(TB_MODULE_SOURCES cachefile.cpp jsontext.cpp safetensors.cpp torchcheckpoint.cpp torchpickle.cpp)
