set(TB_MODULE_SOURCES boxes.cpp ciou.cpp cocoeval.cpp detectionconfusion.cpp detectionloss.cpp headdecode.cpp
                      taskalignedassigner.cpp)
