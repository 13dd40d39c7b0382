set(TB_MODULE_SOURCES modelexport.cpp onnxbuilder.cpp onnxexport.cpp onnxlayers.cpp onnxmodelfile.cpp
                      torchweights.cpp)
