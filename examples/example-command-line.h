/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The command line of the module's examples: ns3::CommandLine with camelCase flags, the style of
 * the study program ai-training-sim (--bytes, --outputDir). The PascalCase spellings of
 * ai-training 0.1 (--Bytes, --OutDir) are deprecated: they still work in this release, with a
 * warning on stderr, and go away in the next one.
 */
#ifndef AIT_EXAMPLE_COMMAND_LINE_H
#define AIT_EXAMPLE_COMMAND_LINE_H

#include "ns3/command-line.h"

#include <cctype>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace aitexample
{

/**
 * \brief ns3::CommandLine with camelCase flags that also takes the deprecated PascalCase
 *        spelling of each flag (--Bytes for --bytes), with one warning on stderr per flag.
 */
class ExampleCommandLine
{
  public:
    /**
     * \param file the program's source (__FILE__), as ns3::CommandLine takes it
     * \param program the program's name, for messages
     */
    ExampleCommandLine(const std::string& file, const std::string& program)
        : m_cmd(file),
          m_program(program)
    {
        Usage("");
    }

    /**
     * \brief The text --help prints above the flags, followed by the note on the old spellings.
     * \param text what the program does ("" for none)
     */
    void Usage(const std::string& text)
    {
        m_cmd.Usage(
            (text.empty() ? "" : text + "\n\n") +
            "The PascalCase spellings of ai-training 0.1 (--Bytes for --bytes, --OutDir for "
            "--outputDir) still work, with a warning: they are deprecated and go away in "
            "the next release.");
    }

    /**
     * \brief Add a flag; its deprecated spelling is the name with a capital first letter
     *        (names of one letter, like k, never had another spelling).
     * \tparam T the value's type
     * \param name the flag's camelCase name
     * \param help its help text
     * \param value where its value goes (its initial value is the default)
     */
    template <typename T>
    void AddValue(const std::string& name, const std::string& help, T& value)
    {
        m_cmd.AddValue(name, help, value);
        m_names.insert(name);
        if (name.size() > 1)
        {
            std::string old = name;
            old[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(old[0])));
            m_renamed[old] = name;
        }
    }

    /**
     * \brief A deprecated spelling that is not just the capitalised name (--OutDir for
     *        --outputDir).
     * \param oldName the old flag's name
     * \param name the flag it now is (added with AddValue)
     */
    void AddRenamed(const std::string& oldName, const std::string& name)
    {
        m_renamed[oldName] = name;
    }

    /**
     * \brief A deprecated flag that no longer exists: when given, check is called with its
     *        value ("" if given without one) after the other flags are parsed; it prints the
     *        warning, or calls Fail() when the old meaning cannot be kept.
     * \param oldName the old flag's name
     * \param check what to do with its value
     */
    void AddRemoved(const std::string& oldName, std::function<void(const std::string&)> check)
    {
        m_removed[oldName] = check;
    }

    /**
     * \brief The --Pcap switch of ai-training 0.1, which wrote into ./out by default: the pcap
     *        is now written when --outputDir=DIR is given, and only then. --Pcap=0 without
     *        --outputDir and --Pcap=1 with it keep their meaning (with a warning); the other
     *        combinations stop with exit code 2.
     * \param outputDir the program's --outputDir value (read after parsing)
     */
    void AddRemovedPcap(const std::string* outputDir)
    {
        AddRemoved("Pcap", [this, outputDir](const std::string& v) {
            const bool off = v == "0" || v == "false";
            const bool on = v.empty() || v == "1" || v == "true";
            const std::string arg = "--Pcap" + (v.empty() ? "" : "=" + v);
            if (!off && !on)
            {
                Fail(arg + " is not allowed (the pcap is written when --outputDir=DIR is given)");
            }
            if (off && !outputDir->empty())
            {
                Fail(arg + " contradicts --outputDir=" + *outputDir +
                     " (the pcap is written when --outputDir=DIR is given, and only then)");
            }
            if (on && outputDir->empty())
            {
                Fail(arg + " is deprecated and no longer writes into ./out: give --outputDir=DIR");
            }
            Warn(arg + " is deprecated: the pcap is written when --outputDir=DIR is given, and "
                       "only then");
        });
    }

    /**
     * \brief Print "<program>: <msg>" on stderr and exit with code 2 (a user error).
     * \param msg the message, naming the flag, the value and what is allowed
     */
    [[noreturn]] void Fail(const std::string& msg) const
    {
        std::cerr << m_program << ": " << msg << std::endl;
        std::exit(2);
    }

    /**
     * \brief Print "<program>: warning: <msg>" on stderr.
     * \param msg the warning
     */
    void Warn(const std::string& msg) const
    {
        std::cerr << m_program << ": warning: " << msg << std::endl;
    }

    /**
     * \brief Rewrite the deprecated spellings (one warning each), then let ns3::CommandLine
     *        parse (unknown flags, --help and --PrintHelp as ns-3 does them).
     * \param argc argument count
     * \param argv arguments
     */
    void Parse(int argc, char* argv[])
    {
        std::vector<std::string> args;
        std::vector<std::pair<std::string, std::string>> removed; // name, value
        std::set<std::string> warned;
        for (int i = 0; i < argc; ++i)
        {
            std::string a = argv[i];
            const size_t dashes = a.compare(0, 2, "--") == 0  ? 2
                                  : a.compare(0, 1, "-") == 0 ? 1
                                                              : 0;
            const size_t eq = a.find('=');
            const std::string name = a.substr(dashes, eq == std::string::npos ? eq : eq - dashes);
            const std::string value = eq == std::string::npos ? "" : a.substr(eq + 1);
            if (i > 0 && dashes > 0 && m_removed.count(name))
            {
                removed.emplace_back(name, value);
                continue;
            }
            auto r = m_renamed.find(name);
            if (i > 0 && dashes > 0 && r != m_renamed.end() && !m_names.count(name))
            {
                if (warned.insert(name).second)
                {
                    Warn("--" + name + " is deprecated: use --" + r->second +
                         " (the PascalCase spellings go away in the next release)");
                }
                a = "--" + r->second + (eq == std::string::npos ? "" : "=" + value);
            }
            args.push_back(a);
        }
        m_cmd.Parse(args);
        for (const auto& [name, value] : removed)
        {
            m_removed.at(name)(value);
        }
    }

  private:
    ns3::CommandLine m_cmd;                                                   //!< ns-3's parser
    std::string m_program;                                                    //!< for messages
    std::set<std::string> m_names;                                            //!< current flags
    std::map<std::string, std::string> m_renamed;                             //!< old -> new
    std::map<std::string, std::function<void(const std::string&)>> m_removed; //!< old flags
};

} // namespace aitexample

#endif // AIT_EXAMPLE_COMMAND_LINE_H
