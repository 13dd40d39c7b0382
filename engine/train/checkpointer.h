// Checkpoints: weights, optimizer and scaler state, the loader position and the config in one
// .safetensors file per save, rotated to keep the last N plus the best.
#pragma once

#include "nn/graph.h"
#include "optim/gradscaler.h"
#include "optim/optimizer.h"
#include "train/runconfig.h"

#include <string>
#include <vector>

namespace tb {

// Where training stands: enough to continue the same trajectory.
struct Position {
    int64_t epoch = 0;        // completed epochs
    int64_t batchInEpoch = 0; // micro-batches of the current epoch already consumed
    int64_t step = 0;         // optimizer steps taken
    int64_t samplesSeen = 0;
    double bestValAcc = 0.0;
    int64_t bestEpoch = 0;
    // What picked the best epoch: its validation accuracy, or a detector's fitness
    // (0.1 mAP50 + 0.9 mAP50-95, as Ultralytics picks best.pt).
    double bestFitness = 0.0;
    // The shape of the job that got here: its ranks and per-rank micro-batch, which say where
    // batchInEpoch lies in the epoch's order (checkpoints before data-parallel runs: 1 and 0,
    // the run's own batch size).
    int ranks = 1;
    int64_t batchSize = 0;
};

// Moves `pos` to the same place in the epoch's shuffled order for a job of `ranks` ranks with
// micro-batches of `batchSize` (a run resumed on another rank count or batch size). A data-
// parallel job's micro-batch b covers samples [b x batch x ranks, (b+1) x batch x ranks) of that
// order, each rank reading every ranks-th, so the place is a count of samples; when it falls
// inside one of the new job's batches, that batch is read again from its start. Returns the
// samples read twice (0 when it falls on a boundary).
int64_t moveToJobShape(Position& pos, int ranks, int64_t batchSize);

class Checkpointer {
public:
    // Files go to config.checkpoint_dir, else <root>/<runId>.
    Checkpointer(const RunConfig& config, const std::string& runId, const std::string& root);
    // Removes the folder prepareDirectory() created when nothing was saved in it, so a run
    // that failed before its first checkpoint leaves no empty folder behind.
    ~Checkpointer();
    Checkpointer(const Checkpointer&) = delete;
    Checkpointer& operator=(const Checkpointer&) = delete;

    // Creates the checkpoint folder and proves it writable with a probe file, so a run fails
    // before its first step rather than at its first save. Throws ConfigError("checkpoint_dir")
    // naming the folder and the reason.
    void prepareDirectory();
    // Writes a checkpoint and returns its path. Epoch-end saves are rotated; `best` also
    // refreshes best.safetensors.
    std::string save(const Position& pos, Graph& graph, Optimizer& optimizer, GradScaler* scaler,
                     bool best);
    // Restores state saved by save() into a graph/optimizer built from the same config.
    Position load(const std::string& path, Graph& graph, Optimizer& optimizer, GradScaler* scaler);
    // Only the model's weights and buffers, for inference.
    static void loadWeights(const std::string& path, Graph& graph);
    static RunConfig configOf(const std::string& path);
    // The run a checkpoint belongs to, so a resumed run continues the same record.
    static std::string runIdOf(const std::string& path);
    const std::string& directory() const { return m_dir; }

    // A language model's vocabulary, saved with every checkpoint so that it decodes its own
    // output even when the text it trained on has changed or gone.
    struct Vocabulary {
        std::vector<std::string> tokens;
        bool byteLevel = false;
    };
    void setVocabulary(Vocabulary vocabulary) { m_vocabulary = std::move(vocabulary); }
    // The vocabulary saved in a checkpoint; empty tokens when it has none (a classifier's).
    static Vocabulary vocabularyOf(const std::string& path);

private:
    void rotate();

    RunConfig m_config;
    std::string m_runId;
    std::string m_dir;
    bool m_createdDir = false; // by prepareDirectory(), not there before
    Vocabulary m_vocabulary;
};

// Default checkpoint root: $XDG_DATA_HOME/TrainBench/checkpoints (else ~/.local/share/...).
std::string defaultCheckpointRoot();

} // namespace tb
