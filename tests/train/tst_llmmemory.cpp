// The language-model memory calculator: the presets' parameter counts agree with GPT-2's formula,
// "a 7B model needs at least 24 GB" comes out as arithmetic (bf16 inference fits a 24 GB card
// and no 16 GB one; training with AdamW needs 16 bytes a parameter before any activation), the
// activations grow with batch, depth and the context squared (eager attention) or linearly (a
// fused kernel, the default) and shrink under checkpointing,
// accumulation keeps the memory of one micro-batch, grouped-query attention shrinks the KV
// cache, and bad input names its field.
#include "core/errors.h"
#include "train/llmmemory.h"

#include <nlohmann/json.hpp>

#include <QtTest>

#include <cmath>
#include <functional>
#include <map>

using namespace tb;

namespace {

LlmMemoryEstimate estimate(const std::string& preset, bool training, const std::string& precision,
                           int64_t batch = 1, int64_t context = 0,
                           const std::string& attention = "flash") {
    LlmMemoryQuery q;
    q.model = transformerPreset(preset, "preset");
    q.training = training;
    q.precision = precision;
    q.batch = batch;
    q.context = context;
    q.attention = attention;
    return estimateLlmMemory(q);
}

} // namespace

class TestLlmMemory : public QObject {
    Q_OBJECT

private slots:
    // GPT-2's published sizes (and nanoGPT's Shakespeare model's) from 12*L*d^2 + V*d + s*d.
    void gptPresetsMatchTheirFormula() {
        for (const TransformerShape& p : transformerPresets()) {
            if (p.name.rfind("llama", 0) == 0)
                continue; // SwiGLU and grouped-query attention: not GPT-2's count
            const double formula = gptParameterCount(p.layers, p.width, p.context, p.vocab);
            QVERIFY2(std::abs(formula / p.params - 1.0) < 0.015,
                     qPrintable(QString::fromStdString(p.name) + ": " + QString::number(formula)));
        }
    }

    // The article's "a 7B model needs at least 24 GB", as arithmetic.
    void sevenBillionNeedsTwentyFourGigabytesToRun() {
        const LlmMemoryEstimate e = estimate("llama-7b", false, "bf16-true");
        QCOMPARE(e.weights, std::llround(6.74e9 * 2));
        QCOMPARE(e.gradients, int64_t{0});
        QCOMPARE(e.optimizerState, int64_t{0});
        QVERIFY(e.kvCache > 0);
        qInfo("llama-7b bf16 inference at 4096 tokens: %.1f GB", e.total() / 1e9);
        QVERIFY(e.total() > 16'000'000'000);  // no 16 GB card
        QVERIFY(e.total() <= 24'000'000'000); // a 24 GB one
        // Quantised to 4 bits, it fits an 8 GB card with a short context.
        LlmMemoryQuery q;
        q.model = transformerPreset("llama-7b", "preset");
        q.precision = "int4";
        q.context = 1024;
        QVERIFY(estimateLlmMemory(q).total() < 8'000'000'000);
    }

    // Mixed-precision AdamW: f32 weights, f32 gradients and two f32 moments, 16 bytes a
    // parameter; bf16-true halves all three.
    void trainingTakesSixteenBytesAParameterBeforeActivations() {
        const LlmMemoryEstimate mixed = estimate("llama-7b", true, "bf16-mixed");
        QCOMPARE(mixed.weights + mixed.gradients + mixed.optimizerState, std::llround(6.74e9 * 16));
        const LlmMemoryEstimate pure = estimate("llama-7b", true, "bf16-true");
        QCOMPARE(pure.weights + pure.gradients + pure.optimizerState, std::llround(6.74e9 * 8));
        QVERIFY(mixed.total() > 80'000'000'000); // fused attention: beyond an 80 GB H100
        // Eager attention's stored scores: beyond any single GPU listed.
        QVERIFY(estimate("llama-7b", true, "bf16-mixed", 1, 0, "eager").total() > 141'000'000'000);
    }

    // Eager attention stores the scores: the activations grow with the context squared.
    void activationsGrowWithBatchDepthAndContextSquared() {
        const LlmMemoryEstimate base = estimate("gpt2", true, "bf16-mixed", 8, 512, "eager");
        const LlmMemoryEstimate twiceBatch = estimate("gpt2", true, "bf16-mixed", 16, 512, "eager");
        const LlmMemoryEstimate twiceContext =
            estimate("gpt2", true, "bf16-mixed", 8, 1024, "eager");
        QCOMPARE(twiceBatch.activations, 2 * base.activations);
        QCOMPARE(twiceBatch.weights, base.weights); // weights do not grow with the batch
        QVERIFY(twiceContext.activations > 2 * base.activations); // the s^2 attention term
        // Korthikanti et al.'s count, by hand: s*b*h*(34 + 5*a*s/h) bytes a layer.
        const double layer = 512.0 * 8 * 768 * (34 + 5.0 * 12 * 512 / 768);
        QCOMPARE(base.activations, std::llround(12 * layer));

        LlmMemoryQuery q;
        q.model = transformerPreset("gpt2", "preset");
        q.training = true;
        q.precision = "bf16-mixed";
        q.batch = 8;
        q.context = 512;
        q.attention = "eager";
        q.checkpointing = true;
        const LlmMemoryEstimate checkpointed = estimateLlmMemory(q);
        QVERIFY(checkpointed.activations < base.activations / 4);
        q.checkpointing = false;
        q.accumulation = 4;
        const LlmMemoryEstimate accumulated = estimateLlmMemory(q);
        QCOMPARE(accumulated.total(), base.total());
        QCOMPARE(accumulated.effectiveBatch, int64_t{32});
    }

    // A fused kernel (PyTorch 2's default) never stores the scores, only a f32 log-sum-exp a row
    // and head: linear in the context, which is why 4k-context training fits at all. LLaMA-7B
    // at 4,096 tokens: eager's scores alone are 32 x 5*a*s^2 = 86 GB more.
    void fusedAttentionStoresNoScores() {
        const LlmMemoryEstimate flash = estimate("gpt2", true, "bf16-mixed", 8, 512);
        const double layer = 512.0 * 8 * 768 * 34 + 4.0 * 12 * 512 * 8;
        QCOMPARE(flash.activations, std::llround(12 * layer));
        const LlmMemoryEstimate twiceContext = estimate("gpt2", true, "bf16-mixed", 8, 1024);
        QCOMPARE(twiceContext.activations, 2 * flash.activations); // linear in the context
        const LlmMemoryEstimate eager = estimate("llama-7b", true, "bf16-mixed", 1, 4096, "eager");
        const LlmMemoryEstimate fused = estimate("llama-7b", true, "bf16-mixed", 1, 4096);
        const double scores = 32.0 * 5 * 32 * 4096.0 * 4096, stats = 32.0 * 4 * 32 * 4096;
        QCOMPARE(eager.activations - fused.activations, std::llround(scores - stats));
        qInfo("llama-7b, one 4,096-token sequence: activations %.1f GB eager, %.1f GB fused",
              eager.activations / 1e9, fused.activations / 1e9);
        QVERIFY(QString::fromStdString(fused.working[3]).contains("never stored"));
        // Reading a prompt: the same difference for one layer at a time.
        QVERIFY(estimate("llama-7b", false, "bf16-true", 1, 4096, "eager").activations >
                estimate("llama-7b", false, "bf16-true", 1, 4096).activations);
    }

    // LLaMA-70B keeps 8 key/value heads for its 64 query heads: an eighth of the cache.
    void groupedQueryAttentionShrinksTheCache() {
        LlmMemoryQuery q;
        q.model = transformerPreset("llama-70b", "preset");
        const int64_t grouped = estimateLlmMemory(q).kvCache;
        q.model.kvHeads = 0;
        QCOMPARE(estimateLlmMemory(q).kvCache, 8 * grouped);
    }

    void aParameterCountTakesTheNearestShape() {
        const TransformerShape s = transformerOfParams(7e9);
        QCOMPARE(s.layers, int64_t{32});
        QVERIFY(std::abs(gptParameterCount(s.layers, s.width, 0, 0) / 7e9 - 1.0) < 0.1);
        QCOMPARE(s.width % 64, int64_t{0});
        QCOMPARE(transformerOfParams(124e6).width, int64_t{768});
    }

    void badInputNamesItsField() {
        const auto fails = [](const std::function<void()>& f, const std::string& field) {
            try {
                f();
            } catch (const ConfigError& e) {
                return e.field() == field;
            }
            return false;
        };
        QVERIFY(fails([] { estimate("llama-7b", true, "int8"); }, "precision"));
        QVERIFY(fails([] { estimate("llama-7b", false, "fp8"); }, "precision"));
        QVERIFY(fails([] { transformerPreset("llama-8b", "--preset"); }, "--preset"));
        QVERIFY(fails([] { transformerOfParams(0); }, "params"));
        LlmMemoryQuery q;
        q.model = transformerPreset("gpt2", "preset");
        q.training = true;
        q.optimizer = "lion";
        QVERIFY(fails([&] { estimateLlmMemory(q); }, "optimizer"));
        q.optimizer = "adamw";
        q.attention = "sdpa";
        QVERIFY(fails([&] { estimateLlmMemory(q); }, "attention"));
        try {
            transformerPreset("llama-8b", "--preset");
        } catch (const ConfigError& e) {
            QVERIFY2(std::string(e.what()).find("llama-7b") != std::string::npos, e.what());
        }
    }

    void theJsonSaysWhichGpusHoldIt() {
        LlmMemoryQuery q;
        q.model = transformerPreset("llama-7b", "preset");
        const nlohmann::json j = toJson(q, estimateLlmMemory(q));
        QCOMPARE(j.at("use").get<std::string>(), std::string("inference"));
        std::map<std::string, bool> fits;
        for (const nlohmann::json& g : j.at("fits"))
            fits[g.at("gpu").get<std::string>()] = g.at("fits").get<bool>();
        QVERIFY(fits.at("RTX 3090 / 4090"));
        QVERIFY(!fits.at("RTX 4080"));
    }
};

QTEST_GUILESS_MAIN(TestLlmMemory)
#include "tst_llmmemory.moc"
