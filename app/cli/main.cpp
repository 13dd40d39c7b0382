// trainbench-cli: finds the command and prints any engine error as one paragraph.
#include "commands.h"

#include "core/errors.h"
#include "core/processenv.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <string_view>

namespace {

// The exit code once standard output is flushed and closed: its last bytes are written only
// here, and a full disk or a closed pipe behind it must not pass for success.
int closeStdout(const char* command, int code) {
    std::cout.flush();
    const bool written = std::cout.good() && std::fflush(stdout) == 0 && !std::ferror(stdout);
    if (std::fclose(stdout) != 0 || !written) {
        std::fprintf(stderr, "trainbench-cli %s: error: writing the output failed: %s\n", command,
                     std::strerror(errno));
        return code == 0 ? 1 : code;
    }
    return code;
}

void printUsage() {
    std::puts("usage: trainbench-cli COMMAND [options]\n\ncommands:");
    for (const tb::cli::Command& c : tb::cli::commands())
        std::printf("  %-14s %s\n", c.name, c.summary);
    std::puts("\nRun 'trainbench-cli COMMAND --help' for a command's options.");
}

} // namespace

int main(int argc, char** argv) {
    tb::applyComputeEnvironment(argv);
    if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0) {
        printUsage();
        return argc < 2 ? 2 : 0;
    }
    const std::string_view name = argv[1];
    for (const tb::cli::Command& c : tb::cli::commands()) {
        if (name != c.name)
            continue;
        try {
            return closeStdout(c.name, c.run(tb::cli::Argv(argv + 2, argv + argc)));
        } catch (const tb::Error& e) {
            std::fprintf(stderr, "trainbench-cli %s: error: %s\n", c.name, e.what());
            return 1;
        } catch (const std::exception& e) {
            std::fprintf(stderr, "trainbench-cli %s: internal error: %s\n", c.name, e.what());
            return 3;
        }
    }
    std::fprintf(stderr, "trainbench-cli: unknown command '%s'\n\n", argv[1]);
    printUsage();
    return 2;
}
