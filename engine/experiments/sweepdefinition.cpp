// Sweep files: parsed and checked against the config schema; trials listed or drawn.
#include "experiments/sweepdefinition.h"

#include "backend/kernels/random_math.h"
#include "core/errors.h"
#include "core/textformat.h"
#include "experiments/jsonfields.h"
#include "io/jsontext.h"
#include "store/runsummary.h"

#include <cctype>
#include <cmath>
#include <set>

namespace tb {

namespace {

// A grid larger than this is a mistake, not a plan (each trial is a training run).
constexpr std::size_t kMaxTrials = 10000;

// A value as --set takes it: whole numbers without a decimal point, others to 6 digits.
std::string valueText(double v, bool integer) {
    if (integer)
        return std::to_string(std::llround(v));
    return formatString("%.6g", v);
}

// A uniform double in [0, 1) from the counter-based stream: the same draws on every machine
// (std::uniform_real_distribution is not specified bit for bit).
double uniform(uint64_t seed, uint64_t counter) {
    return static_cast<double>(math::mix64(seed, counter) >> 11) * 0x1.0p-53;
}

double atFraction(const SweepParameter& p, double t) {
    if (p.logScale)
        return std::exp(std::log(p.min) + t * (std::log(p.max) - std::log(p.min)));
    return p.min + t * (p.max - p.min);
}

SweepParameter parseParameter(const std::string& key, const nlohmann::json& spec,
                              const JsonFields& sweep, bool grid, const std::string& source) {
    const std::string where = "parameters." + key;
    const ConfigField* field = findConfigField(key);
    if (!field)
        sweep.fail(where, "is not a config key (trainbench-cli config-keys lists them)");
    if (!spec.is_object())
        sweep.fail(where, "must be {\"values\": [...]} or {\"min\": ..., \"max\": ...}");
    const JsonFields r(spec, source, where + ".");
    SweepParameter p;
    p.key = key;
    const auto check = [&](const std::string& at, const std::string& text) {
        if (const auto error = validateField(key, text))
            r.fail(at, *error);
    };
    if (const auto values = spec.find("values"); values != spec.end()) {
        if (!values->is_array() || values->empty())
            r.fail("values", "must be a non-empty list");
        std::set<std::string> seen;
        for (std::size_t i = 0; i < values->size(); ++i) {
            const std::string text = setValueText((*values)[i]);
            check("values[" + std::to_string(i) + "]", text);
            if (!seen.insert(text).second)
                r.fail("values[" + std::to_string(i) + "]", "'" + text + "' is listed twice");
            p.values.push_back(text);
        }
        return p;
    }
    if (field->type != "int" && field->type != "float")
        r.fail("values", "is missing (" + key + " is not a number, so it takes a list)");
    const auto number = [&](const char* name) {
        const auto it = spec.find(name);
        if (it == spec.end() || !it->is_number())
            r.fail(name, "must be a number");
        return it->get<double>();
    };
    p.min = number("min");
    p.max = number("max");
    p.integer = field->type == "int";
    if (!(p.min < p.max))
        r.fail("max", "must be above min");
    check("min", valueText(p.min, p.integer));
    check("max", valueText(p.max, p.integer));
    const std::string scale = r.text("scale", false);
    if (!scale.empty() && scale != "linear" && scale != "log")
        r.fail("scale", "'" + scale + "' must be linear or log");
    p.logScale = scale == "log";
    if (p.logScale && p.min <= 0.0)
        r.fail("min", "must be above 0 on a log scale");
    if (grid) {
        p.steps = r.count("steps", 0, 2, 1000);
        if (p.steps == 0)
            r.fail("steps", "is missing: a range in a grid needs the number of points");
    } else if (spec.contains("steps")) {
        r.fail("steps", "applies to a grid; random search draws from the whole range");
    }
    return p;
}

HalvingBudget parseBudget(const nlohmann::json& json, const JsonFields& sweep,
                          const std::string& source) {
    const auto spec = json.find("budget");
    if (spec == json.end() || !spec->is_object())
        sweep.fail("budget", "is missing: halving needs {\"unit\": \"epochs\", \"min\": 1, "
                             "\"max\": 9, \"reduction\": 3}");
    const JsonFields r(*spec, source, "budget.");
    HalvingBudget b;
    const std::string unit = r.text("unit", true);
    if (unit != "epochs" && unit != "steps")
        r.fail("unit", "'" + unit + "' must be epochs or steps");
    b.epochs = unit == "epochs";
    b.min = r.count("min", 0, 1, 1 << 30);
    if (b.min == 0)
        r.fail("min", "is missing: the budget of the first rung");
    b.max = r.count("max", 0, 1, 1 << 30);
    if (b.max <= b.min)
        r.fail("max", "must be above min (a trial that is never judged is not halved)");
    b.reduction = r.count("reduction", 3, 2, 100);
    return b;
}

// A grid parameter's points, as --set values (a rounded integer range may repeat a point: once).
std::vector<std::string> gridValues(const SweepParameter& p) {
    if (!p.isRange())
        return p.values;
    std::vector<std::string> out;
    for (int i = 0; i < p.steps; ++i) {
        const std::string v =
            valueText(atFraction(p, static_cast<double>(i) / (p.steps - 1)), p.integer);
        if (out.empty() || out.back() != v)
            out.push_back(v);
    }
    return out;
}

} // namespace

const char* toString(SweepMethod method) {
    switch (method) {
    case SweepMethod::Grid:
        return "grid";
    case SweepMethod::Random:
        return "random";
    case SweepMethod::Halving:
        return "halving";
    }
    return "grid";
}

std::vector<int64_t> HalvingBudget::rungs() const {
    std::vector<int64_t> out;
    for (int64_t at = min; at < max; at *= reduction)
        out.push_back(at);
    return out;
}

std::string SweepTrial::label() const {
    std::string out;
    for (const auto& [key, value] : set)
        out += (out.empty() ? "" : " ") + key + "=" + value;
    return out;
}

SweepDefinition parseSweepDefinition(const nlohmann::json& json, const std::string& source) {
    if (!json.is_object())
        throw ConfigError(source, "a sweep must be a JSON object");
    const JsonFields r(json, source);
    SweepDefinition s;
    s.name = r.text("name", true);
    for (const char c : s.name)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.')
            r.fail("name", "'" + s.name +
                               "' may hold letters, digits, '-', '_' and '.' only "
                               "(it tags the sweep's runs)");
    if (const auto config = json.find("config"); config != json.end()) {
        if (!config->is_object())
            r.fail("config", "must be an object of config keys, as a config file holds them");
        try {
            s.base.applyJson(*config);
            s.base.validate();
        } catch (const ConfigError& e) {
            r.fail("config." + e.field(), e.what());
        }
    }
    const std::string method = r.text("method", true);
    if (method == "grid")
        s.method = SweepMethod::Grid;
    else if (method == "random")
        s.method = SweepMethod::Random;
    else if (method == "halving")
        s.method = SweepMethod::Halving;
    else
        r.fail("method", "'" + method + "' must be grid, random or halving");
    if (s.method != SweepMethod::Grid) {
        s.count = r.count("count", 0, 1, static_cast<int>(kMaxTrials));
        if (s.count == 0 && s.method == SweepMethod::Random)
            r.fail("count", "is missing: how many trials random search draws");
    } else if (json.contains("count")) {
        r.fail("count", "applies to random search; a grid runs every combination");
    }
    if (s.method == SweepMethod::Halving)
        s.budget = parseBudget(json, r, source);
    else if (json.contains("budget"))
        r.fail("budget", "applies to halving");
    s.seed = static_cast<uint64_t>(r.count("seed", 0, 0, 1 << 30));

    const std::string metric = r.text("metric", true);
    const SummaryMetric* known = findSummaryMetric(metric);
    if (!known)
        r.fail("metric",
               "'" + metric + "' is not recorded for a run; one of " + summaryMetricNames());
    s.metric = {known->name, known->higherIsBetter};
    if (s.method == SweepMethod::Halving) {
        if (!known->measuredWhileTraining)
            r.fail("metric", "'" + known->name +
                                 "' is known only once a trial ends; halving judges trials "
                                 "while they train (val or train accuracy and loss)");
        if (!s.budget.epochs && known->name != "final_train_loss")
            r.fail("metric", "a budget in steps judges trials by final_train_loss (validation "
                             "runs at epoch ends): use it, or a budget in epochs");
    }
    if (const std::string goal = r.text("goal", false); !goal.empty()) {
        if (goal != "maximize" && goal != "minimize")
            r.fail("goal", "'" + goal + "' must be maximize or minimize");
        s.metric.maximize = goal == "maximize";
    }

    const auto parameters = json.find("parameters");
    if (parameters == json.end() || !parameters->is_object() || parameters->empty())
        r.fail("parameters", "must name at least one config key with its values");
    for (const auto& [key, spec] : parameters->items())
        s.parameters.push_back(parseParameter(key, spec, r, s.count == 0, source));
    if (s.method == SweepMethod::Halving)
        for (const char* key : {"max_epochs", "max_steps"})
            if (parameters->contains(key))
                r.fail(std::string("parameters.") + key,
                       "is set by the halving budget; sweep other keys");
    if (s.count == 0) {
        std::size_t trials = 1;
        for (const SweepParameter& p : s.parameters)
            if ((trials *= gridValues(p).size()) > kMaxTrials)
                r.fail("parameters", "the grid has more than " + std::to_string(kMaxTrials) +
                                         " combinations: use random search");
    }
    return s;
}

SweepDefinition loadSweepDefinition(const std::string& path) {
    return parseSweepDefinition(parseJsonFile(path), path);
}

std::vector<SweepTrial> sweepTrials(const SweepDefinition& sweep) {
    std::vector<SweepTrial> trials;
    if (sweep.count == 0) {
        std::vector<std::vector<std::string>> axes;
        for (const SweepParameter& p : sweep.parameters)
            axes.push_back(gridValues(p));
        std::vector<std::size_t> at(axes.size(), 0);
        for (bool more = true; more;) {
            SweepTrial t;
            t.index = static_cast<int>(trials.size());
            for (std::size_t k = 0; k < axes.size(); ++k)
                t.set.emplace_back(sweep.parameters[k].key, axes[k][at[k]]);
            trials.push_back(std::move(t));
            // Odometer order: the last parameter changes fastest.
            more = false;
            for (std::size_t k = axes.size(); k-- > 0;) {
                if (++at[k] < axes[k].size()) {
                    more = true;
                    break;
                }
                at[k] = 0;
            }
        }
        return trials;
    }
    for (int i = 0; i < sweep.count; ++i) {
        SweepTrial t;
        t.index = i;
        for (std::size_t k = 0; k < sweep.parameters.size(); ++k) {
            const SweepParameter& p = sweep.parameters[k];
            const double u = uniform(sweep.seed, static_cast<uint64_t>(i) * 64 + k);
            std::string value;
            if (p.isRange()) {
                value = valueText(atFraction(p, u), p.integer);
            } else {
                const auto pick =
                    std::min(p.values.size() - 1,
                             static_cast<std::size_t>(u * static_cast<double>(p.values.size())));
                value = p.values[pick];
            }
            t.set.emplace_back(p.key, value);
        }
        trials.push_back(std::move(t));
    }
    return trials;
}

RunConfig trialConfig(const SweepDefinition& sweep, const SweepTrial& trial) {
    RunConfig c = sweep.base;
    for (const auto& [key, value] : trial.set)
        c.set(key, value);
    if (sweep.method == SweepMethod::Halving) {
        c.set("max_epochs", sweep.budget.epochs ? std::to_string(sweep.budget.max) : "0");
        c.set("max_steps", sweep.budget.epochs ? "-1" : std::to_string(sweep.budget.max));
    }
    return c;
}

} // namespace tb
