#include "signalstop.h"

#include <atomic>
#include <chrono>
#include <csignal>

namespace tb::cli {

namespace {

std::atomic<bool> g_signalled{false};

void onStop(int) {
    g_signalled = true;
}

} // namespace

SignalStop::SignalStop() {
    g_signalled = false;
    std::signal(SIGINT, onStop);
    std::signal(SIGTERM, onStop);
    m_watcher = std::jthread([this](std::stop_token done) {
        while (!done.stop_requested() && !g_signalled.load())
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        if (g_signalled.load())
            m_source.request_stop();
    });
}

SignalStop::~SignalStop() = default; // the jthread asks its loop to end and joins it

} // namespace tb::cli
