#!/usr/bin/env node
// ONNX Runtime (onnxruntime-node from npm) on TrainBench's ONNX exports (tst_export_onnx).
//
//   node run_ort.js DIR   for every DIR/NAME.onnx beside DIR/NAME.io.safetensors (x: a batch of
//                         inputs, logits: TrainBench's evaluation-mode logits), computes the
//                         batch and prints one JSON line {NAME: {relative_error, top1_agree} |
//                         {error}}
// NODE_PATH points at the node_modules holding onnxruntime-node.
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');

// A .safetensors file's F32 tensors: {name: {shape, data: Float32Array}}.
function readSafetensors(file) {
    const bytes = fs.readFileSync(file);
    const headerLength = Number(bytes.readBigUInt64LE(0));
    const header = JSON.parse(bytes.subarray(8, 8 + headerLength).toString('utf8'));
    const body = bytes.subarray(8 + headerLength);
    const tensors = {};
    for (const [name, info] of Object.entries(header)) {
        if (name === '__metadata__') continue;
        const [begin, end] = info.data_offsets;
        const copy = new Uint8Array(body.subarray(begin, end)); // aligned for Float32Array
        tensors[name] = {shape: info.shape, data: new Float32Array(copy.buffer)};
    }
    return tensors;
}

function compare(logits, reference, classes) {
    let diff = 0, norm = 0, agree = true;
    for (let i = 0; i < reference.length; ++i) {
        diff += (logits[i] - reference[i]) ** 2;
        norm += reference[i] ** 2;
    }
    const argmax = (a, row) => {
        let best = 0;
        for (let c = 1; c < classes; ++c) if (a[row * classes + c] > a[row * classes + best]) best = c;
        return best;
    };
    for (let row = 0; row < reference.length / classes; ++row)
        agree = agree && argmax(logits, row) === argmax(reference, row);
    return {relative_error: Math.sqrt(diff / norm), top1_agree: agree};
}

async function run(folder) {
    const results = {};
    const names = fs.readdirSync(folder).filter((f) => f.endsWith('.onnx')).sort();
    for (const file of names) {
        const name = file.slice(0, -'.onnx'.length);
        try {
            const io = readSafetensors(path.join(folder, name + '.io.safetensors'));
            const session = await ort.InferenceSession.create(path.join(folder, file));
            const inputName = session.inputNames[0];
            const x = inputName === 'input_ids'
                ? new ort.Tensor('int64', BigInt64Array.from(io.x.data, (v) => BigInt(v)), io.x.shape)
                : new ort.Tensor('float32', io.x.data, io.x.shape);
            const out = await session.run({[inputName]: x});
            const logits = out[session.outputNames[0]];
            const shape = io.logits.shape;
            results[name] = compare(logits.data, io.logits.data, shape[shape.length - 1]);
        } catch (e) {
            results[name] = {error: String(e.message || e)};
        }
    }
    console.log(JSON.stringify(results));
}

run(process.argv[2]);
