set(TB_MODULE_SOURCES dataset.cpp)
