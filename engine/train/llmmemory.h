// What a transformer language model needs in GPU memory, from its shape alone: the arithmetic
// behind "a 7B-parameter model needs at least 24 GB", for configurations far beyond any machine
// TrainBench runs on. Weights, gradients and the optimizer's state per parameter by precision;
// activations per layer from Korthikanti et al., "Reducing Activation Recomputation in Large
// Transformer Models" (2022): s*b*h*(34 + 5*a*s/h) bytes at 16-bit when attention stores its
// score matrices (the term that grows with the context squared), s*b*h*34 when a fused kernel
// (FlashAttention, PyTorch 2's scaled_dot_product_attention) never writes them; the KV cache for
// inference.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace tb {

// A decoder-only transformer (GPT-2, LLaMA): its size and the shapes that set its activations.
struct TransformerShape {
    std::string name = "custom";
    double params = 0.0;
    int64_t layers = 0, width = 0, heads = 0;
    int64_t kvHeads = 0; // key/value heads (grouped-query attention); 0: as many as heads
    int64_t context = 0, vocab = 0;
};

// GPT-2 (124M to 1.5B), nanoGPT's Shakespeare character model and LLaMA 2 (7B to 70B), with
// their published parameter counts.
const std::vector<TransformerShape>& transformerPresets();
// The preset named, or throws ConfigError naming `field` and the names there are.
TransformerShape transformerPreset(const std::string& name, const std::string& field);
// A shape of `params` parameters: the preset nearest in size, its depth and width scaled by the
// cube root of the ratio (width a multiple of 64), context and vocabulary kept.
TransformerShape transformerOfParams(double params);
// 12 * layers * width^2 (attention and MLP) + vocab * width (embedding, tied output) + context
// * width (learned positions): GPT-2's count, within 1% of the published ones.
double gptParameterCount(int64_t layers, int64_t width, int64_t context, int64_t vocab);

struct LlmMemoryQuery {
    TransformerShape model;
    bool training = false;
    // Lightning's names: 32-true, 16-mixed, bf16-mixed (f32 weights, 16-bit activations),
    // 16-true, bf16-true (everything 16-bit); int8 and int4 (quantised weights, inference only).
    std::string precision = "bf16-true";
    std::string optimizer = "adamw"; // adamw, sgd (momentum), sgd-plain (none): training only
    int64_t batch = 1;               // sequences per micro-batch
    int64_t context = 0;             // tokens per sequence; 0: the model's
    int accumulation = 1;            // micro-batches per optimizer step
    bool checkpointing = false;      // activation checkpointing: each layer's input kept only
    // "flash": a fused kernel (PyTorch 2.x's default scaled_dot_product_attention) keeps one f32
    // log-sum-exp per row and head instead of the scores; "eager": the scores, their softmax
    // and its dropout mask are stored (5*a*s^2*b bytes a layer), as an unfused implementation.
    std::string attention = "flash";
};

struct LlmMemoryEstimate {
    int64_t weights = 0;
    int64_t gradients = 0;
    int64_t optimizerState = 0;
    int64_t activations = 0; // training: what backward keeps; inference: one layer's working set
    int64_t logits = 0;      // batch x context x vocab, and the loss's f32 copy in training
    int64_t kvCache = 0;     // inference: keys and values of every layer for the whole context
    int64_t runtime = 0;     // CUDA context and library workspaces, about 0.5 GiB
    int64_t effectiveBatch = 0;
    std::vector<std::string> working; // the arithmetic, one line per part
    int64_t total() const {
        return weights + gradients + optimizerState + activations + logits + kvCache + runtime;
    }
};

// Throws ConfigError naming the field for an unknown precision or optimizer, quantised weights
// for training, or a shape with zeros.
LlmMemoryEstimate estimateLlmMemory(const LlmMemoryQuery& query);

// Common GPUs and their memory, for "fits on": RTX 4060 (8 GB) to H200 (141 GB).
struct GpuMemory {
    std::string name;
    int64_t bytes;
};
const std::vector<GpuMemory>& commonGpus();

nlohmann::json toJson(const LlmMemoryQuery& query, const LlmMemoryEstimate& estimate);

// GB as GPU makers count them (10^9 bytes: "24 GB" on the box is 24e9): "13.5 GB", "0.54 GB".
std::string formatGigabytes(double bytes);
// "6.74B", "124.0M".
std::string formatParameterCount(double params);

} // namespace tb
