set(TB_FOLDER_SOURCES failurebanner.cpp logpanel.cpp runprogress.cpp)
