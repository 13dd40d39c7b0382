// trainbench-cli config-keys, completion and man: what the command table and the config schema
// say, written for a person (a table), for bash and for man(1). The build runs the last two for
// the packages, so the completion and the manual cannot drift from the program.
#include "args.h"
#include "commands.h"
#include "confighelp.h"

#include "core/textformat.h"
#include "data/datasets.h"
#include "experiments/experimentpreset.h"
#include "nn/modelzoo.h"
#include "train/runconfig.h"

#include <cstdio>
#include <string>
#include <vector>

namespace tb::cli {

namespace {

// Completion words and manual page lists: separated by spaces.
std::string spaced(const std::vector<std::string>& items) {
    return joined(items, " ");
}

// "--json --quiet": a command's options and flags as completion words.
std::string optionWords(const ArgSpec& spec) {
    std::vector<std::string> words{"--help"};
    for (const std::string& o : spec.options)
        words.push_back("--" + o);
    for (const std::string& f : spec.flags)
        words.push_back("--" + f);
    return spaced(words);
}

// Every `--set` word: key= for each key, and key=value for each choice and boolean.
std::string setWords() {
    std::vector<std::string> words;
    for (const ConfigField& f : configSchema()) {
        if (f.type == "choice")
            for (const std::string& c : f.choices)
                words.push_back(f.key + "=" + c);
        else if (f.type == "bool")
            words.insert(words.end(), {f.key + "=true", f.key + "=false"});
        else
            words.push_back(f.key + "=");
    }
    return spaced(words);
}

void printCompletion() {
    std::vector<std::string> names;
    for (const Command& c : commands())
        names.push_back(c.name);
    std::vector<std::string> models, presets;
    for (const ZooEntry& z : modelZoo())
        models.push_back(z.name);
    for (const ExperimentPreset& p : builtinExperiments())
        presets.push_back(p.id);
    std::printf(
        "# bash completion for trainbench-cli, written by `trainbench-cli completion bash`\n"
        "# from its command table and config schema.\n"
        "_trainbench_cli() {\n"
        "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
        "    local command=${COMP_WORDS[1]}\n"
        "    compopt -o nosort 2>/dev/null\n"
        "    if ((COMP_CWORD == 1)); then\n"
        "        COMPREPLY=($(compgen -W '%s' -- \"$cur\"))\n"
        "        return\n"
        "    fi\n"
        "    case $prev in\n"
        "    --set)\n"
        "        compopt -o nospace 2>/dev/null\n"
        "        COMPREPLY=($(compgen -W '%s' -- \"$cur\"))\n"
        "        return ;;\n"
        "    --config|--db|--out|--resume|--input)\n"
        "        COMPREPLY=($(compgen -f -- \"$cur\"))\n"
        "        return ;;\n"
        "    --model)\n"
        "        COMPREPLY=($(compgen -W '%s' -f -- \"$cur\"))\n"
        "        return ;;\n"
        "    --dataset)\n"
        "        COMPREPLY=($(compgen -W '%s' -- \"$cur\"))\n"
        "        return ;;\n"
        "    --device)\n"
        "        COMPREPLY=($(compgen -W 'auto cpu cuda cuda:0 cuda:1' -- \"$cur\"))\n"
        "        return ;;\n"
        "    --precision)\n"
        "        COMPREPLY=($(compgen -W '32 16-mixed bf16-mixed' -- \"$cur\"))\n"
        "        return ;;\n"
        "    esac\n"
        "    local options subcommands\n"
        "    case $command in\n",
        spaced(names).c_str(), setWords().c_str(), spaced(models).c_str(),
        spaced(datasetNames()).c_str());
    for (const Command& c : commands()) {
        std::vector<std::string> subcommands = c.subcommands;
        if (std::string(c.name) == "experiment")
            subcommands.insert(subcommands.end(), presets.begin(), presets.end());
        std::printf("    %s) options='%s'; subcommands='%s' ;;\n", c.name,
                    optionWords(c.spec).c_str(), spaced(subcommands).c_str());
    }
    std::printf("    esac\n"
                "    if [[ $command == experiment && $prev == run ]]; then\n"
                "        COMPREPLY=($(compgen -W '%s' -f -- \"$cur\"))\n"
                "    elif [[ $cur == -* ]]; then\n"
                "        COMPREPLY=($(compgen -W \"$options\" -- \"$cur\"))\n"
                "    elif ((COMP_CWORD == 2)) && [[ -n $subcommands ]]; then\n"
                "        COMPREPLY=($(compgen -W \"$subcommands\" -- \"$cur\"))\n"
                "    fi\n"
                "}\n"
                "complete -F _trainbench_cli trainbench-cli\n",
                spaced(presets).c_str());
}

// Text for roff: a backslash and a leading dot or quote would be read as requests.
std::string roff(std::string text) {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '\\')
            out += "\\e";
        else if (c == '-')
            out += "\\-";
        else if (c == '|')
            out += "|\\:"; // a place to break a long list of alternatives (groff's \:)
        else if ((c == '.' || c == '\'') && (i == 0 || text[i - 1] == '\n'))
            out += std::string("\\&") + c;
        else
            out += c;
    }
    return out;
}

void printManHeader(const char* name, const char* summary) {
    // Ragged right (.ad l): a key's list of datasets, broken only at its bars, has too few
    // spaces to stretch into a justified line.
    std::printf(".TH %s 1 \"\" \"TrainBench %s\" \"User Commands\"\n.ad l\n.SH NAME\n%s \\- %s\n",
                name, TB_VERSION, roff(name).c_str(), roff(summary).c_str());
}

void printCommonSections() {
    std::puts(".SH FILES\n"
              ".TP\n\\fI$XDG_DATA_HOME/TrainBench/runs.db\\fR\n"
              "The run store (SQLite; default \\fI~/.local/share/TrainBench/runs.db\\fR), shared "
              "by the window and the command line.\n"
              ".TP\n\\fI$XDG_DATA_HOME/TrainBench/checkpoints/RUN_ID/\\fR\n"
              "Checkpoints (safetensors), unless \\fBcheckpoint_dir\\fR says otherwise.\n"
              ".TP\n\\fI/usr/lib/trainbench/libtrainbench_cuda.so\\fR\n"
              "The CUDA backend (package trainbench\\-cuda), loaded when it and a usable NVIDIA "
              "GPU are there.\n"
              ".SH ENVIRONMENT\n"
              ".TP\n\\fBXDG_DATA_HOME\\fR\nWhere the run store and checkpoints live.\n"
              ".TP\n\\fBTRAINBENCH_CUDA_PLUGIN\\fR\nThe CUDA plugin (a file or a folder) to load "
              "instead of the installed one.\n"
              ".TP\n\\fBTRAINBENCH_CLI\\fR\nThe trainbench\\-cli that starts data\\-parallel "
              "jobs for the window and experiments.");
}

void printCliMan() {
    printManHeader("trainbench-cli", "train neural networks and watch where the time goes");
    std::puts(".SH SYNOPSIS\n.B trainbench\\-cli\n.I COMMAND\n[\\fIoptions\\fR]\n"
              ".SH DESCRIPTION\n"
              "\\fBtrainbench\\-cli\\fR drives the TrainBench engine without a window: it trains "
              "a model on a dataset with the configuration given by \\fB\\-\\-config\\fR and "
              "\\fB\\-\\-set\\fR \\fIkey\\fR=\\fIvalue\\fR, records every run with its hardware "
              "telemetry in the run store that the \\fBtrainbench\\fR(1) window also reads, and "
              "compares, exports and edits recorded runs. It trains on an NVIDIA GPU when the "
              "CUDA plugin finds a usable one and on the CPU otherwise, saying why. "
              "\\fB\\-\\-nproc\\fR \\fIN\\fR (or \\fBranks\\fR=\\fIN\\fR) trains data\\-parallel "
              "on N processes through mpirun.\n.SH COMMANDS");
    for (const Command& c : commands()) {
        std::printf(".TP\n\\fB%s\\fR", roff(c.name).c_str());
        if (!c.subcommands.empty())
            std::printf(" [%s]", roff(spaced(c.subcommands)).c_str());
        std::printf("\n%s.", roff(c.summary).c_str());
        std::vector<std::string> words;
        for (const std::string& o : c.spec.options)
            words.push_back("\\fB\\-\\-" + roff(o) + "\\fR \\fIVALUE\\fR");
        for (const std::string& f : c.spec.flags)
            words.push_back("\\fB\\-\\-" + roff(f) + "\\fR");
        if (!words.empty()) {
            std::string list;
            for (const std::string& w : words)
                list += (list.empty() ? "" : ", ") + w;
            std::printf(" Options: %s.", list.c_str());
        }
        std::printf(" See \\fBtrainbench\\-cli %s \\-\\-help\\fR.\n", roff(c.name).c_str());
    }
    std::puts(".SH CONFIGURATION KEYS\n"
              "Each key is set with \\fB\\-\\-set\\fR \\fIkey\\fR=\\fIvalue\\fR or in a JSON "
              "file given to \\fB\\-\\-config\\fR (nested objects give dotted keys). A key "
              "followed by [\\fIkey\\fR=\\fIvalues\\fR] applies only with that setting.");
    ConfigGroup current{};
    bool first = true;
    for (const ConfigField& f : configSchema()) {
        if (first || f.group != current) {
            std::printf(".SS %s\n", toString(f.group));
            current = f.group;
            first = false;
        }
        std::printf(".TP\n\\fB%s\\fR (%s, default %s)\n%s\n", roff(f.key).c_str(),
                    roff(configTypeText(f)).c_str(), roff(configDefaultText(f)).c_str(),
                    roff(configMeaning(f)).c_str());
    }
    std::puts(".SH EXIT STATUS\n"
              "0 when the command did what was asked; 1 when it failed (the error is printed, "
              "naming the key, file or offset); 2 for a usage error; 130 or 143 when a run was "
              "stopped by SIGINT or SIGTERM after saving a checkpoint (continue it with "
              "\\fB\\-\\-resume\\fR).");
    printCommonSections();
    std::puts(".SH EXAMPLES\n.nf\n"
              "trainbench\\-cli train\n"
              "trainbench\\-cli train \\-\\-set model=resnet20 \\-\\-set dataset=cifar10 "
              "\\-\\-set precision=bf16\\-mixed\n"
              "trainbench\\-cli train \\-\\-nproc 2 \\-\\-set model=lenet5\n"
              "trainbench\\-cli runs compare RUN1 RUN2 \\-\\-metric val/acc\n"
              "trainbench\\-cli experiment num_workers\n"
              "trainbench\\-cli doctor\n.fi\n"
              ".SH SEE ALSO\n\\fBtrainbench\\fR(1), \\fBmpirun\\fR(1)");
}

void printWindowMan() {
    printManHeader("trainbench", "the TrainBench window: set up, train and compare runs");
    std::puts(".SH SYNOPSIS\n.B trainbench\n[\\fB\\-\\-db\\fR \\fIPATH\\fR] "
              "[\\fB\\-\\-screenshot\\fR \\fIPNG\\fR] [\\fIQt options\\fR]\n"
              ".SH DESCRIPTION\n"
              "\\fBtrainbench\\fR is a desktop workbench for training neural networks. The "
              "set\\-up column picks a dataset and a model and every knob of the run (batch "
              "size, DataLoader workers, pinned memory, mixed precision, gradient accumulation, "
              "data\\-parallel ranks); Train starts it on a worker thread while the charts show "
              "the loss, validation, throughput with the step time broken down, the hardware and "
              "the ranks live. The Runs tab lists every recorded run and compares them; the "
              "Predictions tab shows the confusion matrix and misclassified samples; the Learn "
              "tab holds concept cards, experiments and lessons. Help shows the user, teaching "
              "and developer guides.\n"
              ".SH OPTIONS\n"
              ".TP\n\\fB\\-\\-db\\fR \\fIPATH\\fR\nThe run store to record in and browse "
              "(default: the one \\fBtrainbench\\-cli\\fR(1) uses).\n"
              ".TP\n\\fB\\-\\-screenshot\\fR \\fIPNG\\fR\nOpen the window, write it to a PNG "
              "file once it is shown, and quit (a check that it comes up; with "
              "QT_QPA_PLATFORM=offscreen no display is needed).\n"
              ".TP\n\\fB\\-\\-help\\fR, \\fB\\-\\-version\\fR\nWhat they say.\n"
              ".SH KEYS\nCtrl+Return trains, Ctrl+P pauses, Esc stops; Alt+1 to Alt+5 switch "
              "the tabs; Tab walks the window; arrows, + and \\- pan and zoom a chart, Home "
              "fits it, Ctrl+E exports it.");
    printCommonSections();
    std::puts(".SH SEE ALSO\n\\fBtrainbench\\-cli\\fR(1)");
}

} // namespace

int cmdConfigKeys(const Argv& argv) {
    const Args args(argv, specOf("config-keys"));
    if (args.flag("help")) {
        std::puts("usage: trainbench-cli config-keys [--markdown]\n\nEvery config key by group: "
                  "type and range or choices, default, meaning and when it applies; --markdown "
                  "writes the tables the README holds.");
        return 0;
    }
    if (args.flag("markdown"))
        printConfigKeysMarkdown(stdout);
    else
        printConfigKeys(stdout);
    return 0;
}

int cmdCompletion(const Argv& argv) {
    const Args args(argv, specOf("completion"));
    if (args.flag("help") || args.positional() != std::vector<std::string>{"bash"}) {
        std::puts("usage: trainbench-cli completion bash\n\nWrites a bash completion script for "
                  "the commands, their options and the config keys of --set. Installed "
                  "packages put it in /usr/share/bash-completion/completions; by hand:\n"
                  "  source <(trainbench-cli completion bash)");
        return args.flag("help") ? 0 : 2;
    }
    printCompletion();
    return 0;
}

int cmdMan(const Argv& argv) {
    const Args args(argv, specOf("man"));
    const std::vector<std::string>& words = args.positional();
    if (args.flag("help") || words.size() != 1 ||
        (words[0] != "trainbench-cli" && words[0] != "trainbench")) {
        std::puts("usage: trainbench-cli man trainbench-cli|trainbench\n\nWrites the manual page "
                  "in roff (man -l - reads it from a pipe).");
        return args.flag("help") ? 0 : 2;
    }
    if (words[0] == "trainbench")
        printWindowMan();
    else
        printCliMan();
    return 0;
}

} // namespace tb::cli
