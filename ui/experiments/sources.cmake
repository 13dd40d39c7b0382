set(TB_MODULE_SOURCES experimentcontroller.cpp)
