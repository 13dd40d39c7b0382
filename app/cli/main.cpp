// trainbench-cli: dispatches to one command per file.
#include <cstdio>

int main() {
    std::puts("trainbench-cli");
    return 0;
}
