// Checkpoint save, load and rotation.
#include "train/checkpointer.h"

#include "core/datadirectory.h"
#include "core/errors.h"
#include "io/jsontext.h"
#include "io/safetensors.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace fs = std::filesystem;

namespace tb {

namespace {

constexpr const char* kFormat = "trainbench-checkpoint-1";

const std::string& metadataOf(const SafetensorsFile& file, const std::string& key,
                              const std::string& path) {
    const auto it = file.metadata.find(key);
    if (it == file.metadata.end())
        throw DatasetError(path, -1,
                           "not a TrainBench checkpoint (no " + key + " in its metadata)");
    return it->second;
}

Tensor toHost(Backend& b, const Tensor& t) {
    Tensor h = Tensor::host(t.shape(), t.dtype());
    b.copy(t, h);
    return h;
}

// Makes `to` a copy of `from`, whole or not at all: copy_file over `to` itself would leave it
// truncated when the disk fills up, and --resume would find a broken last checkpoint.
void replaceWithCopy(const std::string& from, const std::string& to) {
    const std::string tmp = to + ".tmp";
    std::error_code ec;
    fs::copy_file(from, tmp, fs::copy_options::overwrite_existing, ec);
    if (!ec)
        fs::rename(tmp, to, ec);
    if (ec) {
        std::error_code ignored;
        fs::remove(tmp, ignored);
        throw Error("cannot write checkpoint " + to + ": " + ec.message());
    }
}

} // namespace

std::string defaultCheckpointRoot() {
    return dataDirectory() + "/checkpoints";
}

Checkpointer::Checkpointer(const RunConfig& config, const std::string& runId,
                           const std::string& root)
    : m_config(config), m_runId(runId),
      m_dir(!config.checkpointDir.empty()
                ? config.checkpointDir
                : (root.empty() ? defaultCheckpointRoot() : root) + "/" + runId) {}

Checkpointer::~Checkpointer() {
    std::error_code ec;
    if (m_createdDir && fs::is_empty(m_dir, ec))
        fs::remove(m_dir, ec);
}

void Checkpointer::prepareDirectory() {
    const auto fail = [&](const std::string& what, const std::string& reason) {
        throw ConfigError("checkpoint_dir", "cannot " + what + " the checkpoint folder " + m_dir +
                                                ": " + reason +
                                                (m_config.checkpointDir.empty()
                                                     ? " (set checkpoint_dir to use another folder)"
                                                     : ""));
    };
    std::error_code ec;
    m_createdDir = fs::create_directories(m_dir, ec) || m_createdDir;
    if (ec)
        fail("create", ec.message());
    if (!fs::is_directory(m_dir, ec))
        fail("use", "it is not a folder");
    const std::string probe = m_dir + "/.write-test-" + m_runId; // runs may share a folder
    std::FILE* f = std::fopen(probe.c_str(), "wb");
    if (!f)
        fail("write to", std::strerror(errno));
    const bool written = std::fputc('\n', f) != EOF;
    const bool closed = std::fclose(f) == 0;
    fs::remove(probe, ec);
    if (!written || !closed)
        fail("write to", std::strerror(errno));
}

std::string Checkpointer::save(const Position& pos, Graph& graph, Optimizer& optimizer,
                               GradScaler* scaler, bool best) {
    prepareDirectory(); // the folder may have gone since the run started
    std::error_code ec;
    Backend& b = graph.backend();
    std::vector<SafetensorsEntry> tensors;
    for (const NamedTensor& t : graph.stateDict())
        tensors.push_back({t.name, toHost(b, *t.tensor)});
    for (const auto& [name, t] : optimizer.state())
        tensors.push_back({"optimizer." + name, toHost(b, *t)});
    if (scaler)
        tensors.push_back({"scaler.state", toHost(b, scaler->state())});
    nlohmann::json groups = nlohmann::json::array();
    for (const ParamGroup& g : optimizer.groups())
        groups.push_back({{"name", g.name}, {"tensors", g.params.size()}, {"lr_mult", g.lrMult}});
    nlohmann::json dropout = nlohmann::json::object();
    for (const Layer* l : graph.layers())
        if (l->drawsMasks())
            dropout[l->name()] = l->passes();
    std::map<std::string, std::string> meta = {
        {"format", kFormat},
        {"run_id", m_runId},
        {"config", m_config.toJson().dump()},
        {"position", nlohmann::json{{"epoch", pos.epoch},
                                    {"batch_in_epoch", pos.batchInEpoch},
                                    {"step", pos.step},
                                    {"samples_seen", pos.samplesSeen},
                                    {"best_val_acc", pos.bestValAcc},
                                    {"best_epoch", pos.bestEpoch},
                                    {"best_fitness", pos.bestFitness},
                                    {"ranks", pos.ranks},
                                    {"batch_size", pos.batchSize},
                                    {"optimizer_steps", optimizer.steps()},
                                    {"param_groups", groups},
                                    {"dropout_passes", dropout}}
                         .dump()},
    };
    if (!m_vocabulary.tokens.empty())
        meta["vocabulary"] =
            nlohmann::json{{"tokens", m_vocabulary.tokens}, {"byte_level", m_vocabulary.byteLevel}}
                .dump();
    char name[64];
    if (pos.batchInEpoch == 0)
        std::snprintf(name, sizeof name, "epoch-%04lld.safetensors",
                      static_cast<long long>(pos.epoch));
    else
        std::snprintf(name, sizeof name, "step-%08lld.safetensors",
                      static_cast<long long>(pos.step));
    const std::string path = m_dir + "/" + name;
    writeSafetensors(path, tensors, meta);
    replaceWithCopy(path, m_dir + "/last.safetensors");
    if (best)
        replaceWithCopy(path, m_dir + "/best.safetensors");
    rotate();
    return path;
}

void Checkpointer::rotate() {
    std::vector<fs::path> saves;
    for (const auto& e : fs::directory_iterator(m_dir))
        if (e.path().filename().string().rfind("epoch-", 0) == 0 ||
            e.path().filename().string().rfind("step-", 0) == 0)
            saves.push_back(e.path());
    // Oldest first: by write time, and by name for saves within the clock's resolution.
    std::sort(saves.begin(), saves.end(), [](const fs::path& a, const fs::path& b) {
        const auto ta = fs::last_write_time(a), tb = fs::last_write_time(b);
        return ta != tb ? ta < tb : a.filename() < b.filename();
    });
    const auto keep = static_cast<std::size_t>(m_config.keepLastCheckpoints);
    for (std::size_t i = 0; i + keep < saves.size(); ++i)
        fs::remove(saves[i]);
}

namespace {
SafetensorsFile readCheckpoint(const std::string& path) {
    SafetensorsFile file = readSafetensors(path);
    if (file.metadata.count("format") == 0 || file.metadata.at("format") != kFormat)
        throw DatasetError(path, -1, "not a TrainBench checkpoint");
    return file;
}

void restore(Backend& b, const SafetensorsFile& file, const std::string& path,
             const std::string& name, Tensor& dst) {
    const auto it = file.tensors.find(name);
    if (it == file.tensors.end())
        throw DatasetError(path, -1,
                           "checkpoint has no tensor '" + name +
                               "': it was saved from a different model or optimizer");
    if (!(it->second.shape() == dst.shape()) || it->second.dtype() != dst.dtype())
        throw DatasetError(path, -1,
                           "tensor '" + name + "' has shape " + it->second.shape().toString() +
                               ", the model needs " + dst.shape().toString());
    b.copy(it->second, dst);
}
// The optimizer's state is stored by parameter index: it lines up only when the same parameters
// train (finetune.freeze). Checkpoints from before parameter groups were recorded are not checked.
void checkParamGroups(const nlohmann::json& position, Optimizer& optimizer,
                      const std::string& path) {
    const auto it = position.find("param_groups");
    if (it == position.end() || !it->is_array())
        return;
    auto describe = [](auto tensors) {
        return std::to_string(tensors) + " parameter tensor" + (tensors == 1 ? "" : "s");
    };
    std::size_t saved = 0, now = 0;
    for (const auto& g : *it)
        saved += g.value("tensors", std::size_t{0});
    for (const ParamGroup& g : optimizer.groups())
        now += g.params.size();
    if (saved != now)
        throw DatasetError(path, -1,
                           "its optimizer trained " + describe(saved) + ", this run trains " +
                               describe(now) +
                               ": resume with the finetune.freeze the checkpoint was written with");
}
} // namespace

void Checkpointer::loadWeights(const std::string& path, Graph& graph) {
    const SafetensorsFile file = readCheckpoint(path);
    for (const NamedTensor& t : graph.stateDict())
        restore(graph.backend(), file, path, t.name, *t.tensor);
}

Position Checkpointer::load(const std::string& path, Graph& graph, Optimizer& optimizer,
                            GradScaler* scaler) {
    const SafetensorsFile file = readCheckpoint(path);
    Backend& b = graph.backend();
    for (const NamedTensor& t : graph.stateDict())
        restore(b, file, path, t.name, *t.tensor);
    const auto p = parseJson(metadataOf(file, "position", path), path + ": metadata 'position'");
    checkParamGroups(p, optimizer, path);
    for (const auto& [name, t] : optimizer.state())
        restore(b, file, path, "optimizer." + name, *t);
    if (scaler)
        restore(b, file, path, "scaler.state", scaler->state());
    Position pos;
    try {
        pos.epoch = p.at("epoch");
        pos.batchInEpoch = p.at("batch_in_epoch");
        pos.step = p.at("step");
        pos.samplesSeen = p.at("samples_seen");
        pos.bestValAcc = p.at("best_val_acc");
        pos.bestEpoch = p.at("best_epoch");
        pos.bestFitness = p.value("best_fitness", pos.bestValAcc); // older checkpoints: accuracy
        pos.ranks = p.value("ranks", 1);
        pos.batchSize =
            p.contains("batch_size") ? p.at("batch_size").get<int64_t>() : configOf(path).batchSize;
        optimizer.setSteps(p.at("optimizer_steps"));
        for (const auto& [name, passes] : p.at("dropout_passes").items())
            if (Layer* l = graph.layer(name); l && l->drawsMasks())
                l->setPasses(passes.get<uint64_t>());
    } catch (const nlohmann::json::exception& e) {
        // A missing or mistyped field: the file was edited or written by something else.
        throw DatasetError(path, -1, "metadata 'position' is malformed: " + jsonErrorText(e));
    }
    return pos;
}

int64_t moveToJobShape(Position& pos, int ranks, int64_t batchSize) {
    const int64_t read = pos.batchInEpoch * pos.batchSize * pos.ranks;
    const int64_t perBatch = batchSize * ranks;
    pos.batchInEpoch = read / perBatch;
    pos.ranks = ranks;
    pos.batchSize = batchSize;
    return read % perBatch;
}

std::string Checkpointer::runIdOf(const std::string& path) {
    const SafetensorsFile file = readSafetensors(path);
    const auto it = file.metadata.find("run_id");
    return it == file.metadata.end() ? std::string() : it->second;
}

RunConfig Checkpointer::configOf(const std::string& path) {
    const SafetensorsFile file = readSafetensors(path);
    return RunConfig::fromJson(
        parseJson(metadataOf(file, "config", path), path + ": metadata 'config'"));
}

Checkpointer::Vocabulary Checkpointer::vocabularyOf(const std::string& path) {
    const SafetensorsFile file = readSafetensors(path);
    const auto it = file.metadata.find("vocabulary");
    if (it == file.metadata.end())
        return {};
    const auto v = parseJson(it->second, path + ": metadata 'vocabulary'");
    try {
        return {v.at("tokens").get<std::vector<std::string>>(), v.at("byte_level").get<bool>()};
    } catch (const nlohmann::json::exception& e) {
        throw DatasetError(path, -1, "metadata 'vocabulary' is malformed: " + jsonErrorText(e));
    }
}

} // namespace tb
