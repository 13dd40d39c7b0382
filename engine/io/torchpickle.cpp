// readTorchPickle: a small pickle machine (stack, marks, memo) over the opcodes torch.save
// writes, whose only "calls" are the few constructors a state dict is made of.
#include "io/torchpickle.h"

#include "core/errors.h"

#include <algorithm>
#include <cstring>
#include <map>

namespace tb {

namespace {

using Kind = PickleValue::Kind;

// The globals a state dict needs, and nothing else: what REDUCE may "call" and what a
// persistent id names as a storage's type.
bool allowedGlobal(const std::string& name) {
    static const char* const kAllowed[] = {"collections.OrderedDict",
                                           "torch._utils._rebuild_tensor_v2",
                                           "torch._utils._rebuild_parameter",
                                           "torch.FloatStorage",
                                           "torch.DoubleStorage",
                                           "torch.HalfStorage",
                                           "torch.BFloat16Storage",
                                           "torch.LongStorage",
                                           "torch.IntStorage",
                                           "torch.ShortStorage",
                                           "torch.CharStorage",
                                           "torch.ByteStorage",
                                           "torch.BoolStorage"};
    for (const char* a : kAllowed)
        if (name == a)
            return true;
    return false;
}

class Machine {
public:
    Machine(std::string_view bytes, const std::string& file) : m_in(bytes), m_file(file) {}

    PickleValue run() {
        while (true) {
            m_op = m_at;
            const auto op = static_cast<unsigned char>(byte());
            if (op == '.') { // STOP
                if (m_stack.size() != 1)
                    fail("the pickle ends with " + std::to_string(m_stack.size()) +
                         " values on its stack, not one");
                return m_stack.back();
            }
            step(op);
        }
    }

private:
    [[noreturn]] void fail(const std::string& why) const {
        throw DatasetError(m_file, static_cast<int64_t>(m_op), "pickle: " + why);
    }

    // ---- input ----
    char byte() {
        if (m_at >= m_in.size())
            fail("cut short (no STOP opcode)");
        return m_in[m_at++];
    }
    std::string_view take(uint64_t n) {
        if (n > m_in.size() - m_at)
            fail("cut short: " + std::to_string(n) + " bytes announced, " +
                 std::to_string(m_in.size() - m_at) + " left");
        const std::string_view out = m_in.substr(m_at, static_cast<std::size_t>(n));
        m_at += static_cast<std::size_t>(n);
        return out;
    }
    uint64_t littleEndian(int bytes) {
        const std::string_view b = take(static_cast<uint64_t>(bytes));
        uint64_t v = 0;
        for (int i = bytes - 1; i >= 0; --i)
            v = (v << 8) | static_cast<unsigned char>(b[static_cast<std::size_t>(i)]);
        return v;
    }
    std::string line() {
        const std::size_t end = m_in.find('\n', m_at);
        if (end == std::string_view::npos)
            fail("cut short inside a text argument");
        const std::string out(m_in.substr(m_at, end - m_at));
        m_at = end + 1;
        return out;
    }

    // ---- stack ----
    PickleValue pop() {
        if (m_stack.empty() || (!m_marks.empty() && m_stack.size() <= m_marks.back()))
            fail("pops a value the stack does not hold");
        PickleValue v = std::move(m_stack.back());
        m_stack.pop_back();
        return v;
    }
    PickleValue& top() {
        if (m_stack.empty())
            fail("reads the top of an empty stack");
        return m_stack.back();
    }
    // The values pushed since the last MARK, removed with it.
    std::vector<PickleValue> popToMark() {
        if (m_marks.empty())
            fail("no MARK to collect values from");
        const std::size_t from = m_marks.back();
        m_marks.pop_back();
        std::vector<PickleValue> out(
            std::make_move_iterator(m_stack.begin() + static_cast<std::ptrdiff_t>(from)),
            std::make_move_iterator(m_stack.end()));
        m_stack.resize(from);
        return out;
    }
    void push(PickleValue v) { m_stack.push_back(std::move(v)); }

    PickleValue sequence(Kind kind, std::vector<PickleValue> items) {
        PickleValue v;
        v.kind = kind;
        v.items = std::make_shared<std::vector<PickleValue>>();
        m_alive.push_back(v.items);
        for (const PickleValue& item : items)
            place(item, v);
        *v.items = std::move(items);
        return v;
    }
    PickleValue emptyDict() {
        PickleValue v;
        v.kind = Kind::Dict;
        v.entries = std::make_shared<std::vector<std::pair<PickleValue, PickleValue>>>();
        m_alive.push_back(v.entries);
        return v;
    }

    // ---- containers ----
    // torch.save completes each list, tuple and dict before placing it in another, so a
    // container once placed is sealed: changing it later is how a pickle builds a cycle, which
    // would never be freed and would send any walk over the result round for ever. Nesting is
    // bounded too, so walking and freeing the result recurse only so deep.
    static constexpr int kMaxNesting = 64;
    struct ContainerState {
        bool sealed = false;
        int height = 0; // containers below it, along the deepest path
    };
    static const void* containerOf(const PickleValue& v) {
        if (v.items)
            return v.items.get();
        return v.entries.get();
    }
    void place(const PickleValue& child, const PickleValue& parent) {
        const void* c = containerOf(child);
        if (c == nullptr)
            return;
        if (c == containerOf(parent))
            fail("places a list, tuple or dict inside itself");
        ContainerState& inner = m_containers[c];
        inner.sealed = true;
        ContainerState& outer = m_containers[containerOf(parent)];
        outer.height = std::max(outer.height, inner.height + 1);
        if (outer.height > kMaxNesting)
            fail("nests lists, tuples and dicts more than " + std::to_string(kMaxNesting) +
                 " deep");
    }
    void requireUnsealed(const PickleValue& container) {
        if (m_containers[containerOf(container)].sealed)
            fail("changes a list or dict after placing it in another (a state dict never does; "
                 "a cycle does)");
    }
    PickleValue integer(int64_t i) const {
        PickleValue v;
        v.kind = Kind::Int;
        v.integer = i;
        return v;
    }
    PickleValue string(std::string_view s) const {
        PickleValue v;
        v.kind = Kind::String;
        v.text = std::string(s);
        return v;
    }
    PickleValue global(const std::string& module, const std::string& name) const {
        const std::string full = module + "." + name;
        if (!allowedGlobal(full))
            fail("refuses the global '" + full +
                 "': a checkpoint is read as tensors, dicts, lists and numbers only, and nothing "
                 "in it is imported or run");
        PickleValue v;
        v.kind = Kind::Global;
        v.text = full;
        return v;
    }

    void setItems(PickleValue& dict, std::vector<PickleValue> keysAndValues) {
        if (dict.kind != Kind::Dict)
            fail("sets items on something that is not a dict");
        if (keysAndValues.size() % 2)
            fail("sets a key without a value");
        requireUnsealed(dict);
        for (const PickleValue& v : keysAndValues)
            place(v, dict);
        for (std::size_t i = 0; i < keysAndValues.size(); i += 2)
            dict.entries->emplace_back(std::move(keysAndValues[i]),
                                       std::move(keysAndValues[i + 1]));
    }
    void append(PickleValue& list, std::vector<PickleValue> values) {
        if (list.kind != Kind::List)
            fail("appends to something that is not a list");
        requireUnsealed(list);
        for (const PickleValue& v : values)
            place(v, list);
        for (PickleValue& v : values)
            list.items->push_back(std::move(v));
    }

    std::vector<int64_t> ints(const PickleValue& tuple, const char* what) const {
        if (tuple.kind != Kind::Tuple)
            fail(std::string("a tensor's ") + what + " is not a tuple");
        std::vector<int64_t> out;
        for (const PickleValue& v : *tuple.items) {
            if (v.kind != Kind::Int)
                fail(std::string("a tensor's ") + what + " holds something else than integers");
            out.push_back(v.integer);
        }
        return out;
    }

    // REDUCE: the only callables are the allowed globals' constructors.
    PickleValue reduce(const PickleValue& callable, const PickleValue& args) {
        if (callable.kind != Kind::Global || args.kind != Kind::Tuple)
            fail("REDUCE needs a known global and a tuple of arguments");
        const std::vector<PickleValue>& a = *args.items;
        if (callable.text == "collections.OrderedDict") {
            if (!a.empty())
                fail("OrderedDict is built with arguments");
            return emptyDict();
        }
        if (callable.text == "torch._utils._rebuild_tensor_v2") {
            if (a.size() < 4 || a[0].kind != Kind::Storage || a[1].kind != Kind::Int)
                fail("_rebuild_tensor_v2 needs (storage, offset, size, stride, ...)");
            PickleValue v;
            v.kind = Kind::Tensor;
            v.tensor.storage = a[0].storage;
            v.tensor.offset = a[1].integer;
            v.tensor.size = ints(a[2], "size");
            v.tensor.stride = ints(a[3], "stride");
            if (v.tensor.size.size() != v.tensor.stride.size())
                fail("a tensor's size and stride differ in length");
            return v;
        }
        if (callable.text == "torch._utils._rebuild_parameter") {
            if (a.empty() || a[0].kind != Kind::Tensor)
                fail("_rebuild_parameter needs a tensor");
            return a[0];
        }
        fail("cannot build '" + callable.text + "' with REDUCE");
    }

    // BINPERSID: ('storage', <storage type>, key, location, numel).
    PickleValue storage(const PickleValue& id) {
        if (id.kind != Kind::Tuple || id.items->size() < 5)
            fail("a persistent id that is not ('storage', type, key, location, numel)");
        const std::vector<PickleValue>& t = *id.items;
        if (t[0].kind != Kind::String || t[0].text != "storage" || t[1].kind != Kind::Global ||
            t[2].kind != Kind::String || t[4].kind != Kind::Int || t[4].integer < 0)
            fail("a persistent id that is not ('storage', type, key, location, numel)");
        PickleValue v;
        v.kind = Kind::Storage;
        v.storage.type = t[1].text.substr(t[1].text.rfind('.') + 1);
        v.storage.key = t[2].text;
        v.storage.numel = t[4].integer;
        return v;
    }

    void step(unsigned char op) {
        switch (op) {
        case 0x80: // PROTO
            if (static_cast<unsigned char>(byte()) > 5)
                fail("pickle protocol above 5");
            return;
        case 0x95: // FRAME: a length; the frame's opcodes follow in line
            (void)littleEndian(8);
            return;
        case '(': // MARK
            m_marks.push_back(m_stack.size());
            return;
        case '}': // EMPTY_DICT
            return push(emptyDict());
        case ']': // EMPTY_LIST
            return push(sequence(Kind::List, {}));
        case ')': // EMPTY_TUPLE
            return push(sequence(Kind::Tuple, {}));
        case 'd': // DICT
        {
            PickleValue d = emptyDict();
            setItems(d, popToMark());
            return push(std::move(d));
        }
        case 'l': // LIST
            return push(sequence(Kind::List, popToMark()));
        case 't': // TUPLE
            return push(sequence(Kind::Tuple, popToMark()));
        case 0x85: // TUPLE1
        case 0x86: // TUPLE2
        case 0x87: // TUPLE3
        {
            std::vector<PickleValue> items(op - 0x84u);
            for (auto it = items.rbegin(); it != items.rend(); ++it)
                *it = pop();
            return push(sequence(Kind::Tuple, std::move(items)));
        }
        case 'J': // BININT
            return push(integer(static_cast<int32_t>(littleEndian(4))));
        case 'K': // BININT1
            return push(integer(static_cast<int64_t>(littleEndian(1))));
        case 'M': // BININT2
            return push(integer(static_cast<int64_t>(littleEndian(2))));
        case 0x8a: // LONG1: n bytes, two's complement
        {
            const int n = static_cast<unsigned char>(byte());
            if (n > 8)
                fail("an integer wider than 64 bits");
            uint64_t v = n ? littleEndian(n) : 0;
            if (n > 0 && n < 8 && (v >> (8 * n - 1)) & 1)
                v |= ~uint64_t{0} << (8 * n); // sign-extend
            return push(integer(static_cast<int64_t>(v)));
        }
        case 'G': // BINFLOAT: big-endian double
        {
            const std::string_view b = take(8);
            uint64_t bits = 0;
            for (char c : b)
                bits = (bits << 8) | static_cast<unsigned char>(c);
            PickleValue v;
            v.kind = Kind::Float;
            std::memcpy(&v.real, &bits, sizeof bits);
            return push(std::move(v));
        }
        case 0x88: // NEWTRUE
        case 0x89: // NEWFALSE
        {
            PickleValue v;
            v.kind = Kind::Bool;
            v.boolean = op == 0x88;
            return push(std::move(v));
        }
        case 'N': // NONE
            return push(PickleValue{});
        case 'X': // BINUNICODE
            return push(string(take(littleEndian(4))));
        case 0x8c: // SHORT_BINUNICODE
            return push(string(take(littleEndian(1))));
        case 0x8d: // BINUNICODE8
            return push(string(take(littleEndian(8))));
        case 'U': // SHORT_BINSTRING
            return push(string(take(littleEndian(1))));
        case 'T': // BINSTRING
            return push(string(take(littleEndian(4))));
        case 'c': // GLOBAL module\nname\n
        {
            const std::string module = line();
            return push(global(module, line()));
        }
        case 0x93: // STACK_GLOBAL
        {
            const PickleValue name = pop(), module = pop();
            if (name.kind != Kind::String || module.kind != Kind::String)
                fail("STACK_GLOBAL needs a module and a name");
            return push(global(module.text, name.text));
        }
        case 'q': // BINPUT
            m_memo[littleEndian(1)] = top();
            return;
        case 'r': // LONG_BINPUT
            m_memo[littleEndian(4)] = top();
            return;
        case 0x94: // MEMOIZE
            m_memo[m_memo.size()] = top();
            return;
        case 'h': // BINGET
        case 'j': // LONG_BINGET
        {
            const auto it = m_memo.find(littleEndian(op == 'h' ? 1 : 4));
            if (it == m_memo.end())
                fail("refers to a value it never stored");
            return push(it->second);
        }
        case 'R': // REDUCE
        {
            const PickleValue args = pop(), callable = pop();
            return push(reduce(callable, args));
        }
        case 'Q': // BINPERSID
            return push(storage(pop()));
        case 'b': // BUILD: an object's state; a dict's (OrderedDict's _metadata) is not needed
        {
            (void)pop();
            const Kind kind = top().kind;
            if (kind != Kind::Dict && kind != Kind::Tensor)
                fail("BUILD on something that is neither a dict nor a tensor");
            return;
        }
        case 's': // SETITEM
        {
            PickleValue value = pop(), key = pop();
            std::vector<PickleValue> kv;
            kv.push_back(std::move(key));
            kv.push_back(std::move(value));
            return setItems(top(), std::move(kv));
        }
        case 'u': // SETITEMS
        {
            std::vector<PickleValue> kv = popToMark();
            return setItems(top(), std::move(kv));
        }
        case 'a': // APPEND
        {
            std::vector<PickleValue> v;
            v.push_back(pop());
            return append(top(), std::move(v));
        }
        case 'e': // APPENDS
        {
            std::vector<PickleValue> v = popToMark();
            return append(top(), std::move(v));
        }
        case '0': // POP
            (void)pop();
            return;
        case '1': // POP_MARK
            (void)popToMark();
            return;
        case '2': // DUP
            return push(top());
        default:
            fail("opcode 0x" + hex(op) + " is not one a state dict is written with");
        }
    }

    static std::string hex(unsigned char b) {
        const char* digits = "0123456789abcdef";
        return {digits[b >> 4], digits[b & 15]};
    }

    std::string_view m_in;
    const std::string& m_file;
    std::size_t m_at = 0, m_op = 0;
    std::vector<PickleValue> m_stack;
    std::vector<std::size_t> m_marks;
    std::map<uint64_t, PickleValue> m_memo;
    // Every container made, kept until the end so that no address in m_containers is reused.
    std::vector<std::shared_ptr<const void>> m_alive;
    std::map<const void*, ContainerState> m_containers;
};

} // namespace

PickleValue readTorchPickle(std::string_view bytes, const std::string& file) {
    return Machine(bytes, file).run();
}

} // namespace tb
