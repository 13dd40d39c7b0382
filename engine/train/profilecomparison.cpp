#include "train/profilecomparison.h"

#include "core/textformat.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

namespace tb {

namespace {

std::string describe(const ProfileReport& r) {
    return r.model + " on " + r.device + ", precision " + r.precision + ", batch " +
           std::to_string(r.batch);
}

std::string ms(double value) {
    return formatString("%.2f ms", value);
}

} // namespace

ProfileComparison compareProfiles(const ProfileReport& a, const ProfileReport& b) {
    ProfileComparison c{a, b, {}, {}};
    std::map<std::pair<std::string, std::string>, std::size_t> index;
    for (const LayerProfile& row : a.rows) {
        index[{row.name, row.pass}] = c.rows.size();
        ProfileRowChange change;
        change.name = row.name;
        change.pass = row.pass;
        change.type = row.type;
        change.inA = true;
        change.msA = row.ms;
        change.boundA = row.bound;
        change.roofFractionA = row.roofFraction;
        c.rows.push_back(std::move(change));
    }
    for (const LayerProfile& row : b.rows) {
        const auto it = index.find({row.name, row.pass});
        ProfileRowChange* change = nullptr;
        if (it != index.end()) {
            change = &c.rows[it->second];
        } else {
            c.rows.push_back({row.name, row.pass, row.type});
            change = &c.rows.back();
        }
        change->inB = true;
        change->msB = row.ms;
        change->boundB = row.bound;
        change->roofFractionB = row.roofFraction;
    }
    for (Bound bound : {Bound::Compute, Bound::Memory, Bound::Overhead}) {
        BoundShare share{bound};
        for (const ProfileRowChange& row : c.rows) {
            share.msA += row.inA && row.boundA == bound ? row.msA : 0.0;
            share.msB += row.inB && row.boundB == bound ? row.msB : 0.0;
        }
        c.bounds.push_back(share);
    }
    return c;
}

std::vector<std::string> comparisonSummary(const ProfileComparison& c) {
    std::vector<std::string> out;
    const ProfileReport &a = c.a, &b = c.b;
    std::string step = "step " + ms(a.stepMs) + " -> " + ms(b.stepMs);
    if (a.stepMs > 0.0 && b.stepMs > 0.0)
        step += b.stepMs <= a.stepMs ? formatString(" (%.2fx as fast)", a.stepMs / b.stepMs)
                                     : formatString(" (%.2fx as slow)", b.stepMs / a.stepMs);
    std::vector<std::string> changed;
    if (a.model != b.model)
        changed.push_back("model " + a.model + " -> " + b.model);
    if (a.device != b.device)
        changed.push_back("device " + a.device + " -> " + b.device);
    if (a.precision != b.precision)
        changed.push_back("precision " + a.precision + " -> " + b.precision);
    if (a.batch != b.batch)
        changed.push_back("batch " + std::to_string(a.batch) + " -> " + std::to_string(b.batch));
    if (a.batch != b.batch && a.batch > 0 && b.batch > 0 && a.stepMs > 0.0 && b.stepMs > 0.0)
        step +=
            formatString("; per sample %.3f -> %.3f ms", a.stepMs / a.batch, b.stepMs / b.batch);
    if (!changed.empty()) {
        std::string what;
        for (const std::string& s : changed)
            what += (what.empty() ? "" : ", ") + s;
        step += " with " + what;
    } else {
        step += " with the same model, device, precision and batch";
    }
    out.push_back(step);
    if (a.roofline.peakGflops != b.roofline.peakGflops && a.roofline.known() && b.roofline.known())
        out.push_back(formatString("compute roof %.0f -> %.0f GFLOP/s (", a.roofline.peakGflops,
                                   b.roofline.peakGflops) +
                      b.roofline.peakSource + ")");
    for (const BoundShare& s : c.bounds)
        if (s.msA > 0.0 || s.msB > 0.0)
            out.push_back(toString(s.bound) + "-bound rows: " + ms(s.msA) + " -> " + ms(s.msB) +
                          " a step");
    std::vector<const ProfileRowChange*> both;
    for (const ProfileRowChange& row : c.rows)
        if (row.inA && row.inB)
            both.push_back(&row);
    std::sort(both.begin(), both.end(), [](const ProfileRowChange* x, const ProfileRowChange* y) {
        return x->msA - x->msB > y->msA - y->msB;
    });
    const auto list = [](const std::vector<const ProfileRowChange*>& rows) {
        std::string s;
        for (const ProfileRowChange* r : rows)
            s += (s.empty() ? "" : ", ") + r->name + " " + r->pass + " " +
                 formatString("%.2f -> %.2f ms", r->msA, r->msB);
        return s;
    };
    std::vector<const ProfileRowChange*> gained, lost;
    for (const ProfileRowChange* r : both)
        if (r->msA - r->msB > 0.0 && gained.size() < 3)
            gained.push_back(r);
    for (auto it = both.rbegin(); it != both.rend(); ++it)
        if ((*it)->msB - (*it)->msA > 0.0 && lost.size() < 3)
            lost.push_back(*it);
    if (!gained.empty())
        out.push_back("faster most: " + list(gained));
    if (!lost.empty())
        out.push_back("slower most: " + list(lost));
    int moved = 0;
    std::string movedRows;
    for (const ProfileRowChange* r : both)
        if (r->boundA != r->boundB && r->boundA != Bound::Unknown && r->boundB != Bound::Unknown &&
            ++moved <= 4)
            movedRows += (movedRows.empty() ? "" : ", ") + r->name + " " + r->pass + " " +
                         toString(r->boundA) + " -> " + toString(r->boundB);
    if (moved > 0)
        out.push_back(std::to_string(moved) + " row(s) changed bound: " + movedRows +
                      (moved > 4 ? ", ..." : ""));
    return out;
}

std::string formatProfileComparison(const ProfileComparison& c) {
    std::ostringstream out;
    out << "A: " << describe(c.a) << "\nB: " << describe(c.b) << "\n\n";
    for (const std::string& line : comparisonSummary(c))
        out << "- " << line << "\n";
    char line[256];
    std::snprintf(line, sizeof line, "\n%-24s %-9s %10s %10s %7s  %s\n", "layer", "pass", "A ms",
                  "B ms", "B/A", "bound A -> B");
    out << line;
    for (const ProfileRowChange& r : c.rows) {
        const std::string a = r.inA ? formatString("%10.3f", r.msA) : formatString("%10s", "-");
        const std::string b = r.inB ? formatString("%10.3f", r.msB) : formatString("%10s", "-");
        const std::string ratio = r.ratio() > 0.0 ? formatString("%6.2fx", r.ratio()) : "      -";
        const auto bound = [](bool present, Bound value) {
            return present && value != Bound::Unknown ? toString(value) : std::string("-");
        };
        const std::string bounds = bound(r.inA, r.boundA) + " -> " + bound(r.inB, r.boundB);
        std::snprintf(line, sizeof line, "%-24.24s %-9s %s %s %s  %s\n", r.name.c_str(),
                      r.pass.c_str(), a.c_str(), b.c_str(), ratio.c_str(), bounds.c_str());
        out << line;
    }
    return out.str();
}

} // namespace tb
