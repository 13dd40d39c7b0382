// Embedding, PositionEmbedding, LayerNorm and CausalSelfAttention.
#include "nn/transformer.h"

#include "nn/layerutil.h"

namespace tb {

namespace {

const FloatRange kInitStd{0.0, 10.0, /*minOpen=*/true};

// A sequence's rows: (n, t, d) -> (n * t, d).
Tensor rowsOf(const Tensor& t) {
    const int64_t d = t.dim(t.shape().rank() - 1);
    return t.view({t.numel() / d, d});
}

void requireSequence(const std::string& layer, const Shape& s, const char* what) {
    if (s.rank() != 3)
        layerError(layer, std::string("needs ") + what + " (N, T, features), got " + s.toString());
}

} // namespace

Embedding::Embedding(const nlohmann::json& spec)
    : m_rows(intOption(spec, "num_embeddings", 0)), m_dim(intOption(spec, "embedding_dim", 0)),
      m_initStd(floatOption(spec, "init_std", 1.0f, kInitStd)) {
    if (m_rows <= 0 || m_dim <= 0)
        layerError(layerLabel(spec), "needs num_embeddings and embedding_dim");
}

Shape Embedding::outputShape(const std::vector<Shape>& in) const {
    if (in[0].rank() != 2)
        layerError(name(), "reads token ids (N, T), got " + in[0].toString());
    return Shape{in[0][0], in[0][1], m_dim};
}

void Embedding::init(Backend& b, const std::vector<Shape>&, uint64_t seed) {
    m_weight.value = b.empty({m_rows, m_dim}, DType::F32);
    m_weight.grad = b.empty({m_rows, m_dim}, DType::F32);
    normalInit(b, m_weight.value, m_initStd, seed);
}

nlohmann::json Embedding::options() const {
    return {{"num_embeddings", m_rows}, {"embedding_dim", m_dim}, {"init_std", m_initStd}};
}

void Embedding::forward(Backend& b, const Inputs& in, Tensor& out, bool) {
    Tensor rows = rowsOf(out);
    b.embeddingForward(*in[0], m_weight.value, rows);
}

void Embedding::backward(Backend& b, const Inputs& in, const Tensor&, const Tensor& dout,
                         const std::vector<Tensor*>&) {
    b.embeddingBackward(*in[0], rowsOf(dout), m_weight.grad);
}

PositionEmbedding::PositionEmbedding(const nlohmann::json& spec)
    : m_blockSize(intOption(spec, "block_size", 0)),
      m_initStd(floatOption(spec, "init_std", 1.0f, kInitStd)) {
    if (m_blockSize <= 0)
        layerError(layerLabel(spec), "needs block_size, the longest sequence it places");
}

Shape PositionEmbedding::outputShape(const std::vector<Shape>& in) const {
    requireSequence(name(), in[0], "a sequence");
    if (in[0][1] > m_blockSize)
        layerError(name(), "places " + std::to_string(m_blockSize) + " positions (block_size), " +
                               "the sequence has " + std::to_string(in[0][1]));
    return in[0];
}

void PositionEmbedding::init(Backend& b, const std::vector<Shape>& in, uint64_t seed) {
    const int64_t d = in[0][2];
    m_weight.value = b.empty({m_blockSize, d}, DType::F32);
    m_weight.grad = b.empty({m_blockSize, d}, DType::F32);
    normalInit(b, m_weight.value, m_initStd, seed);
}

nlohmann::json PositionEmbedding::options() const {
    return {{"block_size", m_blockSize}, {"init_std", m_initStd}};
}

void PositionEmbedding::forward(Backend& b, const Inputs& in, Tensor& out, bool) {
    b.positionEmbeddingForward(*in[0], m_weight.value, out);
}

void PositionEmbedding::backward(Backend& b, const Inputs&, const Tensor&, const Tensor& dout,
                                 const std::vector<Tensor*>& din) {
    b.positionEmbeddingBackward(dout, m_weight.grad);
    if (din[0])
        b.copy(dout, *din[0]);
}

LayerNorm::LayerNorm(const nlohmann::json& spec)
    : m_eps(floatOption(spec, "eps", 1e-5f, {0.0, 1.0, /*minOpen=*/true})) {}

void LayerNorm::init(Backend& b, const std::vector<Shape>& in, uint64_t) {
    const int64_t d = in[0][in[0].rank() - 1];
    for (Param* p : {&m_weight, &m_bias}) {
        p->value = b.empty({d}, DType::F32);
        p->grad = b.empty({d}, DType::F32);
    }
    b.fill(m_weight.value, 1.0f);
    b.fill(m_bias.value, 0.0f);
}

int64_t LayerNorm::savedBytes(const std::vector<Shape>& in) const {
    return 2 * static_cast<int64_t>(sizeof(float)) * in[0].numel() / in[0][in[0].rank() - 1];
}

void LayerNorm::forward(Backend& b, const Inputs& in, Tensor& out, bool) {
    const int64_t rows = rowsOf(*in[0]).dim(0);
    ensureTensor(b, m_mean, {rows}, DType::F32);
    ensureTensor(b, m_variance, {rows}, DType::F32);
    Tensor y = rowsOf(out);
    b.layerNormForward(rowsOf(*in[0]), m_weight.value, m_bias.value, m_eps, y, m_mean, m_variance);
}

void LayerNorm::backward(Backend& b, const Inputs& in, const Tensor&, const Tensor& dout,
                         const std::vector<Tensor*>& din) {
    if (din[0]) {
        Tensor dx = rowsOf(*din[0]);
        b.layerNormBackward(rowsOf(*in[0]), rowsOf(dout), m_weight.value, m_mean, m_variance, m_eps,
                            dx, m_weight.grad, m_bias.grad);
        return;
    }
    // The first layer of a model reads data, which needs no gradient; the parameters still do.
    ensureTensor(b, m_unusedGrad, in[0]->shape(), dout.dtype());
    Tensor dx = rowsOf(m_unusedGrad);
    b.layerNormBackward(rowsOf(*in[0]), rowsOf(dout), m_weight.value, m_mean, m_variance, m_eps, dx,
                        m_weight.grad, m_bias.grad);
}

CausalSelfAttention::CausalSelfAttention(const nlohmann::json& spec)
    : m_heads(intOption(spec, "n_head", 0, 1, 4096)),
      m_dropout(floatOption(spec, "dropout", 0.0f, {0.0, 1.0, false, /*maxOpen=*/true})) {
    if (m_heads <= 0)
        layerError(layerLabel(spec), "needs n_head, the number of heads");
}

AttentionDesc CausalSelfAttention::describe(const Shape& qkv) const {
    AttentionDesc d;
    d.n = qkv[0];
    d.t = qkv[1];
    d.heads = m_heads;
    d.headDim = qkv[2] / 3 / m_heads;
    return d;
}

Shape CausalSelfAttention::outputShape(const std::vector<Shape>& in) const {
    requireSequence(name(), in[0], "q, k and v side by side:");
    if (in[0][2] % (3 * m_heads) != 0)
        layerError(name(), "splits its input's " + std::to_string(in[0][2]) +
                               " features into q, k and v for " + std::to_string(m_heads) +
                               " heads: they must be a multiple of 3 x n_head");
    return Shape{in[0][0], in[0][1], in[0][2] / 3};
}

void CausalSelfAttention::init(Backend&, const std::vector<Shape>&, uint64_t seed) {
    m_seed = seed;
}

int64_t CausalSelfAttention::flops(const std::vector<Shape>& in) const {
    const AttentionDesc d = describe(in[0]);
    // Scores and the weighted sum: two (t x t x head size) products per head, as computed
    // (the causal half is not skipped).
    return 2 * 2 * d.n * d.heads * d.t * d.t * d.headDim;
}

int64_t CausalSelfAttention::savedBytes(const std::vector<Shape>& in) const {
    return describe(in[0]).probsCount() * static_cast<int64_t>(sizeof(float));
}

nlohmann::json CausalSelfAttention::options() const {
    return {{"n_head", m_heads}, {"dropout", m_dropout}};
}

void CausalSelfAttention::forward(Backend& b, const Inputs& in, Tensor& out, bool training) {
    m_last = describe(in[0]->shape());
    if (training && m_dropout > 0.0f) {
        m_last.dropout = m_dropout;
        m_last.seed = m_seed + 0x9e37ull * ++m_passes;
    }
    ensureTensor(b, m_probs, {m_last.probsCount()}, DType::F32);
    b.attentionForward(m_last, *in[0], out, m_probs);
}

void CausalSelfAttention::backward(Backend& b, const Inputs& in, const Tensor&, const Tensor& dout,
                                   const std::vector<Tensor*>& din) {
    if (din[0])
        b.attentionBackward(m_last, *in[0], m_probs, dout, *din[0]);
}

} // namespace tb
