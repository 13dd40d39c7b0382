// Gradient accumulation with PyTorch's meaning: 4 micro-batches of 64, each loss divided by 4,
// give the same update as one batch of 256 (a model without batch norm).
#include "nn/graph.h"
#include "nn/modelzoo.h"
#include "optim/optimizer.h"
#include "support/testdata.h"

#include <QtTest>

#include <cmath>

using namespace tb;

class TestAccumulation : public QObject {
    Q_OBJECT
private slots:
    void fourMicroBatchesMatchOneBigBatch() {
        auto b = createCpuBackend(2);
        const auto spec = modelSpec("lenet5", {1, 28, 28}, 10);
        Tensor x = test::randomTensor({256, 1, 28, 28}, 11);
        Tensor y = Tensor::host({256}, DType::I32);
        for (int i = 0; i < 256; ++i)
            y.data<int32_t>()[i] = (i * 7) % 10;
        Tensor sums = b->empty({2}, DType::F32);

        Graph big(spec, *b, DType::F32, 5);
        Optimizer optBig(*b, big.params(), {"sgd", 0.9f});
        Graph acc(spec, *b, DType::F32, 5);
        Optimizer optAcc(*b, acc.params(), {"sgd", 0.9f});
        for (int step = 0; step < 3; ++step) {
            big.zeroGrad();
            b->fill(sums, 0.0f);
            const Tensor& bigLogits = big.forward(x, true); // before logitsGrad(): it sizes it
            b->softmaxCrossEntropy(bigLogits, y, 0.0f, sums, &big.logitsGrad(), nullptr, 1.0f);
            big.backward(big.logitsGrad());
            optBig.step(0.05f, nullptr, nullptr);

            acc.zeroGrad();
            for (int m = 0; m < 4; ++m) {
                const Tensor xm = x.slice(m * 64, (m + 1) * 64);
                const Tensor ym = y.slice(m * 64, (m + 1) * 64);
                const Tensor& logits = acc.forward(xm, true);
                b->softmaxCrossEntropy(logits, ym, 0.0f, sums, &acc.logitsGrad(), nullptr, 4.0f);
                acc.backward(acc.logitsGrad());
            }
            optAcc.step(0.05f, nullptr, nullptr);
        }
        float worst = 0.0f;
        const auto pb = big.params(), pa = acc.params();
        for (std::size_t i = 0; i < pb.size(); ++i)
            worst = std::max(worst, test::maxAbsDiff(pb[i]->value, pa[i]->value));
        qInfo("max |w_big - w_accumulated| after 3 steps: %.2e", worst);
        QVERIFY(worst < 1e-5f);
    }
};

QTEST_GUILESS_MAIN(TestAccumulation)
#include "tst_accumulation.moc"
