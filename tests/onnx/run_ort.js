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

// The scores' class axis: the last, but the second of a segmentation's (N, classes, H, W).
// Top-1 agreement is checked at every position where the reference's best class leads the
// next by more than float32 can blur (1e-5 of the largest score): a near-tie may go either way.
function compare(logits, reference, shape) {
    let diff = 0, norm = 0, largest = 0;
    for (let i = 0; i < reference.length; ++i) {
        diff += (logits[i] - reference[i]) ** 2;
        norm += reference[i] ** 2;
        largest = Math.max(largest, Math.abs(reference[i]));
    }
    const pixels = shape.length === 4 ? shape[2] * shape[3] : 1;
    const classes = shape.length === 4 ? shape[1] : shape[shape.length - 1];
    const at = (a, position, c) => {
        const sample = Math.floor(position / pixels), pixel = position % pixels;
        return a[(sample * classes + c) * pixels + pixel];
    };
    let agree = true;
    for (let position = 0; position < reference.length / classes; ++position) {
        let best = 0, mine = 0;
        for (let c = 1; c < classes; ++c) {
            if (at(reference, position, c) > at(reference, position, best)) best = c;
            if (at(logits, position, c) > at(logits, position, mine)) mine = c;
        }
        let second = -Infinity;
        for (let c = 0; c < classes; ++c)
            if (c !== best) second = Math.max(second, at(reference, position, c));
        const tie = at(reference, position, best) - second <= 1e-5 * largest;
        agree = agree && (mine === best || tie);
    }
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
            results[name] = compare(logits.data, io.logits.data, shape);
        } catch (e) {
            results[name] = {error: String(e.message || e)};
        }
    }
    console.log(JSON.stringify(results));
}

run(process.argv[2]);
