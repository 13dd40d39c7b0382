// The engine's typed errors. The CLI prints what() as one paragraph; the UI shows it by the field.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace tb {

// Base of every error the engine throws on purpose.
class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// A configuration value is invalid. field() is the config key ("batch_size", "optimizer.lr").
class ConfigError : public Error {
public:
    ConfigError(std::string field, const std::string& message)
        : Error(field + ": " + message), m_field(std::move(field)) {}
    const std::string& field() const { return m_field; }

private:
    std::string m_field;
};

// A dataset file is missing, unreadable or malformed. offset() is a byte offset, or a line number
// for text formats (lineBased() says which); -1 when the problem is not at one place.
class DatasetError : public Error {
public:
    DatasetError(std::string file, int64_t offset, const std::string& message,
                 bool lineBased = false)
        : Error(describe(file, offset, message, lineBased)), m_file(std::move(file)),
          m_offset(offset), m_lineBased(lineBased) {}
    const std::string& file() const { return m_file; }
    int64_t offset() const { return m_offset; }
    bool lineBased() const { return m_lineBased; }

private:
    static std::string describe(const std::string& file, int64_t offset, const std::string& msg,
                                bool lineBased) {
        std::string where = file;
        if (offset >= 0)
            where += (lineBased ? ", line " : ", offset ") + std::to_string(offset);
        return where + ": " + msg;
    }
    std::string m_file;
    int64_t m_offset;
    bool m_lineBased;
};

// A device allocation failed. Carries what was asked and what the device had, plus advice.
class OutOfMemoryError : public Error {
public:
    OutOfMemoryError(const std::string& device, uint64_t requested, uint64_t freeBytes,
                     uint64_t totalBytes, const std::string& advice);
    // Before allocating: a run estimated to need `requested` bytes (what `need` describes)
    // does not fit in what the device has free.
    static OutOfMemoryError estimated(const std::string& device, uint64_t requested,
                                      const std::string& need, uint64_t freeBytes,
                                      uint64_t totalBytes, const std::string& advice);
    uint64_t requested() const { return m_requested; }
    uint64_t freeBytes() const { return m_free; }
    uint64_t totalBytes() const { return m_total; }
    const std::string& advice() const { return m_advice; }

private:
    struct Message {
        std::string text;
    };
    OutOfMemoryError(Message message, uint64_t requested, uint64_t freeBytes, uint64_t totalBytes,
                     const std::string& advice)
        : Error(message.text), m_requested(requested), m_free(freeBytes), m_total(totalBytes),
          m_advice(advice) {}

    uint64_t m_requested;
    uint64_t m_free;
    uint64_t m_total;
    std::string m_advice;
};

// The training loss became inf or NaN: the run diverged and every later step would learn
// nothing. step() is the optimizer step at which it was seen, loss() the value; what() says
// both and the advice (what to change in the config).
class NonFiniteLossError : public Error {
public:
    NonFiniteLossError(int64_t step, double loss, const std::string& advice);
    int64_t step() const { return m_step; }
    double loss() const { return m_loss; }
    const std::string& advice() const { return m_advice; }

private:
    int64_t m_step;
    double m_loss;
    std::string m_advice;
};

// A backend cannot be used on this machine; reason() says why in words a user can act on.
// A data-parallel job cannot go on: a rank died, hangs past the timeout, or disagrees with
// rank 0 about the run. rank() is the rank it is about (-1 when not known).
class DistributedError : public Error {
public:
    DistributedError(int rank, const std::string& message) : Error(message), m_rank(rank) {}
    int rank() const { return m_rank; }

private:
    int m_rank;
};

class BackendUnavailable : public Error {
public:
    explicit BackendUnavailable(const std::string& reason)
        : Error("GPU backend unavailable: " + reason), m_reason(reason) {}
    const std::string& reason() const { return m_reason; }

private:
    std::string m_reason;
};

// Human-readable byte counts ("1.5 GiB") for messages.
std::string formatBytes(uint64_t bytes);

// Most characters of user data (a CSV cell, a name from a file or a flag) that a message quotes.
inline constexpr std::size_t kMaxQuotedChars = 40;

// User data for an error message, in single quotes: whole when short, else its first
// kMaxQuotedChars characters (never a UTF-8 sequence cut in two), "..." and its length, so a
// 10 MB cell does not make a 10 MB message, log line or run-store entry.
std::string quoteUserData(std::string_view text);

} // namespace tb
