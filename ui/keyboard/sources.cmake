set(TB_MODULE_SOURCES focusring.cpp tabstops.cpp)
