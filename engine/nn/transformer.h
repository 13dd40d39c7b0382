// The layers a GPT is built from (nanoGPT's model.py): token and position embeddings, layer
// norm over the last dimension, and causal multi-head self-attention over a fused q, k, v
// projection. Sequences are (n, t, features); a linear layer on them maps the last dimension.
#pragma once

#include "nn/layer.h"

namespace tb {

// {"type": "embedding", "num_embeddings": V, "embedding_dim": d}: (n, t) token ids -> (n, t, d).
// init_std: the table's normal initialisation (PyTorch's default 1; GPTs use 0.02).
class Embedding final : public Layer {
public:
    explicit Embedding(const nlohmann::json& spec);
    std::string type() const override { return "embedding"; }
    bool readsTokenIds() const override { return true; }
    Shape outputShape(const std::vector<Shape>& in) const override;
    void init(Backend& b, const std::vector<Shape>& in, uint64_t seed) override;
    std::vector<Param*> params() override { return {&m_weight}; }
    nlohmann::json options() const override;
    void forward(Backend& b, const Inputs& in, Tensor& out, bool training) override;
    void backward(Backend& b, const Inputs& in, const Tensor& out, const Tensor& dout,
                  const std::vector<Tensor*>& din) override;
    int64_t rows() const { return m_rows; }

private:
    int64_t m_rows, m_dim;
    float m_initStd;
    Param m_weight{"weight", {}, {}, true};
};

// {"type": "position_embedding", "block_size": T}: x(n, t, d) + a learned vector for each
// position t < T.
class PositionEmbedding final : public Layer {
public:
    explicit PositionEmbedding(const nlohmann::json& spec);
    std::string type() const override { return "position_embedding"; }
    Shape outputShape(const std::vector<Shape>& in) const override;
    void init(Backend& b, const std::vector<Shape>& in, uint64_t seed) override;
    std::vector<Param*> params() override { return {&m_weight}; }
    int64_t flops(const std::vector<Shape>& in) const override { return in[0].numel(); }
    nlohmann::json options() const override;
    void forward(Backend& b, const Inputs& in, Tensor& out, bool training) override;
    void backward(Backend& b, const Inputs& in, const Tensor& out, const Tensor& dout,
                  const std::vector<Tensor*>& din) override;

private:
    int64_t m_blockSize;
    float m_initStd;
    Param m_weight{"weight", {}, {}, true};
};

// {"type": "layer_norm", "eps": 1e-5}: normalises each position's features (the last
// dimension), then scales and shifts them (weight 1, bias 0 to start).
class LayerNorm final : public Layer {
public:
    explicit LayerNorm(const nlohmann::json& spec);
    std::string type() const override { return "layer_norm"; }
    Shape outputShape(const std::vector<Shape>& in) const override { return in[0]; }
    void init(Backend& b, const std::vector<Shape>& in, uint64_t seed) override;
    std::vector<Param*> params() override { return {&m_weight, &m_bias}; }
    int64_t flops(const std::vector<Shape>& in) const override { return 8 * in[0].numel(); }
    int64_t savedBytes(const std::vector<Shape>& in) const override;
    nlohmann::json options() const override { return {{"eps", m_eps}}; }
    void forward(Backend& b, const Inputs& in, Tensor& out, bool training) override;
    void backward(Backend& b, const Inputs& in, const Tensor& out, const Tensor& dout,
                  const std::vector<Tensor*>& din) override;

private:
    float m_eps;
    Param m_weight{"weight", {}, {}, false};
    Param m_bias{"bias", {}, {}, false};
    Tensor m_mean, m_variance;
    Tensor m_unusedGrad; // dx when nothing before the layer learns
};

// {"type": "causal_self_attention", "n_head": h, "dropout": p}: the attention of a GPT block
// between its c_attn and c_proj projections: qkv(n, t, 3 C) -> y(n, t, C), C = h * head size.
class CausalSelfAttention final : public Layer {
public:
    explicit CausalSelfAttention(const nlohmann::json& spec);
    std::string type() const override { return "causal_self_attention"; }
    Shape outputShape(const std::vector<Shape>& in) const override;
    void init(Backend& b, const std::vector<Shape>& in, uint64_t seed) override;
    int64_t flops(const std::vector<Shape>& in) const override;
    int64_t savedBytes(const std::vector<Shape>& in) const override;
    nlohmann::json options() const override;
    void forward(Backend& b, const Inputs& in, Tensor& out, bool training) override;
    void backward(Backend& b, const Inputs& in, const Tensor& out, const Tensor& dout,
                  const std::vector<Tensor*>& din) override;
    // As Dropout: the attention weights it drops depend on the seed and the pass count.
    bool drawsMasks() const override { return true; }
    uint64_t passes() const override { return m_passes; }
    void setPasses(uint64_t passes) override { m_passes = passes; }

private:
    AttentionDesc describe(const Shape& qkv) const;

    int64_t m_heads;
    float m_dropout;
    uint64_t m_seed = 0;
    uint64_t m_passes = 0;
    AttentionDesc m_last; // the last forward's geometry and dropout seed, for backward
    Tensor m_probs;
};

} // namespace tb
