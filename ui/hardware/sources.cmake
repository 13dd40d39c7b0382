set(TB_MODULE_SOURCES hardwarepanel.cpp)
