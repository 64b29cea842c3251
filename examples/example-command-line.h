/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The command line of the module's examples: ns3::CommandLine with camelCase flags, the style of
 * the study program ai-training-sim (--bytes, --outputDir). The PascalCase spellings of
 * ai-training 0.1 (--Bytes, --OutDir) are deprecated: they still work in this release, with a
 * warning on stderr, and go away in the next one. Each program names the spellings it had
 * (AddOldSpellings, AddRenamed, AddRemoved): any other name is an unknown flag.
 *
 * Bad input stops before anything is built: an unknown flag, a value that is not of the flag's
 * type, and (with Require, InRange, OneOf after Parse) a value out of its range print ONE line
 * on stderr, "<program>: --flag=value is not allowed (what is allowed)", and exit with code 2.
 * So do a value with a space or tab (ns3::CommandLine would keep the text before it), a switch
 * given "=" and no value ("--pfc="), a flag given twice (also in its old and new spelling:
 * the last one would win without a word), a number or time out of the range AddValue was
 * given (or that its type holds: ns-3 would wrap a time beyond 9e9 s around), a time that is no
 * whole number of nanoseconds (ns-3 would round it) and a --SimulatorImplementationType or
 * --SchedulerType that names no such type (the run crashed).
 * The deprecation warnings wait until every check passed (Checked): a bad value given with an
 * old spelling prints its error line only. The benchmark programs (bench/) use the same
 * command line.
 */
#ifndef AIT_EXAMPLE_COMMAND_LINE_H
#define AIT_EXAMPLE_COMMAND_LINE_H

#include "child-process.h"
#include "example-flag-ranges.h"
#include "example-flag-syntax.h"
#include "example-switch-buffer.h"

#include "ns3/command-line.h"
#include "ns3/config.h"
#include "ns3/global-value.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/string.h"
#include "ns3/type-id.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <type_traits>
#include <vector>

namespace aitexample
{

/**
 * \brief ns3::CommandLine with camelCase flags that also takes the deprecated PascalCase
 *        spellings the program had in ai-training 0.1 (--Bytes for --bytes), with one warning
 *        on stderr per flag once every check passed.
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

    /// Prints the deprecation warnings if Checked() was never called (they are not lost).
    ~ExampleCommandLine()
    {
        Checked();
    }

    ExampleCommandLine(const ExampleCommandLine&) = delete;
    ExampleCommandLine& operator=(const ExampleCommandLine&) = delete;

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
     * \brief Add a flag (its deprecated spelling, if it had one: AddOldSpellings, AddRenamed).
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
        m_check[name] = [](const std::string& v, std::string& what) {
            return ParsesAs<T>(v, what);
        };
        m_isBool[name] = std::is_same_v<T, bool>;
        if constexpr (std::is_same_v<T, std::string>)
        {
            // ns3::CommandLine refuses "--name=" (it wants a value): an empty text is set here
            m_setEmpty[name] = [&value]() { value.clear(); };
        }
        std::ostringstream def;
        def << std::boolalpha << value;
        m_default[name] = def.str();
    }

    /**
     * \brief Add a flag whose range is known: a value outside it, or one its type cannot hold
     *        (4294967297 for a uint32_t), stops in Parse with "must be in lo .. hi" (InRange's
     *        message) instead of the type's range.
     * \tparam T the value's type (a number or ns3::Time)
     * \param name the flag's camelCase name
     * \param help its help text
     * \param value where its value goes (its initial value is the default)
     * \param lo the smallest allowed value
     * \param hi the largest allowed value
     * \param note appended to the range in the message (e.g. "bytes"; "" for none)
     */
    template <typename T>
    void AddValue(const std::string& name,
                  const std::string& help,
                  T& value,
                  const typename Same<T>::type& lo,
                  const typename Same<T>::type& hi,
                  const std::string& note = "")
    {
        AddValue(name, help, value);
        m_check[name] = RangeCheck<T>(lo, hi, note);
    }

    /**
     * \brief The deprecated spellings of ai-training 0.1 that are the flag's name with a
     *        capital first letter (--Bytes for --bytes): only the program's real ones, so
     *        that a spelling it never had is an unknown flag. Each flag is added with AddValue
     *        (checked in Parse).
     * \param oldNames the old flags' names
     */
    void AddOldSpellings(const std::vector<std::string>& oldNames)
    {
        for (const auto& old : oldNames)
        {
            std::string name = old;
            name[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(name[0])));
            m_renamed[old] = name;
        }
    }

    /**
     * \brief A deprecated spelling that is not just the capitalised name (--OutDir for
     *        --outputDir, --K for --k).
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
     * \brief An ns-3 default or global the program sets itself: --ns3::Type::Attribute=v (or
     *        --Global=v) for it stops with exit code 2 instead of being overwritten without a
     *        word.
     * \param attribute "ns3::Type::Attribute", "ns3::Type::" for all of a type's, or a
     *        global's name
     * \param flag the program's flag that sets it ("" if the program fixes it)
     */
    void Owns(const std::string& attribute, const std::string& flag)
    {
        m_owned[attribute] = flag;
    }

    /**
     * \brief Owns() for what RoceDcqcn::SetPresetDefaults sets (the DCQCN parameters, the
     *        NICs' CNP interval and the congestion controls' minimum rate).
     * \param flag the program's flag that chooses the preset ("" if the program fixes it)
     */
    void OwnsDcqcnPreset(const std::string& flag)
    {
        for (const char* a :
             {"ns3::RoceDcqcn::", "ns3::RdmaNic::CnpInterval", "ns3::RoceCongestionOps::MinRate"})
        {
            Owns(a, flag);
        }
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
     * \brief Stop (exit 2, one line) unless a flag's value is allowed.
     * \param name the flag's camelCase name
     * \param ok whether its value is allowed
     * \param allowed what is allowed, e.g. "an even number >= 2"
     */
    void Require(const std::string& name, bool ok, const std::string& allowed) const
    {
        if (!ok)
        {
            Fail("--" + name + "=" + ValueText(name) + " is not allowed (" + allowed + ")");
        }
    }

    /**
     * \brief Stop (exit 2, one line) unless lo <= value <= hi.
     * \tparam T the value's type
     * \param name the flag's camelCase name
     * \param value its value
     * \param lo the smallest allowed value
     * \param hi the largest allowed value
     * \param note appended to the range in the message (e.g. "bytes"; "" for none)
     */
    template <typename T>
    void InRange(const std::string& name,
                 const T& value,
                 const T& lo,
                 const T& hi,
                 const std::string& note = "") const
    {
        Require(name, !(value < lo) && !(hi < value), RangeText<T>(lo, hi, note));
    }

    /**
     * \brief Stop (exit 2, one line) unless value is one of the allowed words.
     * \param name the flag's camelCase name
     * \param value its value
     * \param allowed the allowed words
     */
    void OneOf(const std::string& name,
               const std::string& value,
               const std::vector<std::string>& allowed) const
    {
        bool ok = false;
        std::string list;
        for (const auto& a : allowed)
        {
            ok = ok || a == value;
            list += (list.empty() ? "" : ", ") + a;
        }
        Require(name, ok, "one of " + list);
    }

    /**
     * \brief Stop (exit 2, one line) unless k is a fat-tree arity the examples build: even,
     *        2 .. 64 (FatTreeHelper takes any even k >= 2; 64 is 65536 hosts).
     * \param name the flag's camelCase name
     * \param k its value
     */
    void FatTreeArity(const std::string& name, uint32_t k) const
    {
        Require(name, k >= 2 && k <= 64 && k % 2 == 0, "an even number in 2 .. 64");
    }

    /**
     * \brief Stop (exit 2, one line) unless a message size is 1 byte .. 1 TiB (2^40, the
     *        largest op of a training workload).
     * \param name the flag's camelCase name
     * \param bytes its value
     */
    void MessageBytes(const std::string& name, uint64_t bytes) const
    {
        InRange<uint64_t>(name, bytes, 1, uint64_t(1) << 40, "bytes");
    }

    /**
     * \brief Stop (exit 2, one line) unless value names a congestion control that
     *        ns3::RdmaNic::CongestionControl takes: Dcqcn, Hpcc, Timely, Dctcp, None, or the
     *        TypeId name of a RoceCongestionOps subclass.
     * \param name the flag's camelCase name
     * \param value its value
     */
    void CongestionControl(const std::string& name, const std::string& value) const
    {
        bool ok = value == "Dcqcn" || value == "Hpcc" || value == "Timely" || value == "Dctcp" ||
                  value == "None";
        ns3::TypeId tid;
        if (!ok && ns3::TypeId::LookupByNameFailSafe(value, &tid) && tid.HasConstructor())
        {
            for (ns3::TypeId t = tid; t != t.GetParent(); t = t.GetParent())
            {
                ok = ok || t.GetParent().GetName() == "ns3::RoceCongestionOps";
            }
        }
        Require(name,
                ok,
                "Dcqcn, Hpcc, Timely, Dctcp, None, or the TypeId name of a RoceCongestionOps "
                "subclass");
    }

    /**
     * \brief Create the output directory a flag names (one level, like mkdir; an existing one
     *        is fine); stop (exit 2, one line) if it cannot be. Call it after every other check.
     * \param name the flag's camelCase name
     * \param dir its value ("" does nothing)
     */
    void MakeOutputDir(const std::string& name, const std::string& dir) const
    {
        struct stat st
        {
        };

        if (dir.empty() || (stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode)))
        {
            return;
        }
        Require(name, mkdir(dir.c_str(), 0755) == 0, "cannot create that directory");
    }

    /**
     * \brief Stop (exit 2, one line) unless every comma-separated item of value is one of the
     *        allowed words (and there is at least one).
     * \param name the flag's camelCase name
     * \param value its value
     * \param allowed the allowed words
     * \return the items, in order
     */
    std::vector<std::string> ListOf(const std::string& name,
                                    const std::string& value,
                                    const std::vector<std::string>& allowed) const
    {
        std::vector<std::string> items;
        std::string list;
        for (const auto& a : allowed)
        {
            list += (list.empty() ? "" : ", ") + a;
        }
        std::stringstream in(value);
        std::string item;
        bool ok = !value.empty();
        while (std::getline(in, item, ','))
        {
            bool known = false;
            for (const auto& a : allowed)
            {
                known = known || a == item;
            }
            ok = ok && known;
            items.push_back(item);
        }
        Require(name, ok && !items.empty(), "a comma-separated list of " + list);
        return items;
    }

    /**
     * \brief Parse a comma-separated list of even numbers (fat-tree radices); stop (exit 2,
     *        one line) unless every item is one in lo .. hi and there is at least one.
     * \param name the flag's camelCase name
     * \param text its value
     * \param lo the smallest allowed number
     * \param hi the largest allowed number
     * \return the numbers, in order
     */
    std::vector<uint32_t> EvenList(const std::string& name,
                                   const std::string& text,
                                   uint32_t lo,
                                   uint32_t hi) const
    {
        std::vector<uint32_t> out;
        std::istringstream in(text);
        std::string item;
        bool ok = !text.empty();
        while (std::getline(in, item, ','))
        {
            const bool digits = !item.empty() && item.size() < 10 &&
                                item.find_first_not_of("0123456789") == std::string::npos;
            const unsigned long v = digits ? std::stoul(item) : 0;
            ok = ok && digits && v >= lo && v <= hi && v % 2 == 0;
            out.push_back(v);
        }
        Require(name,
                ok && !out.empty(),
                "a comma-separated list of even numbers in " + std::to_string(lo) + " .. " +
                    std::to_string(hi));
        return out;
    }

    /**
     * \param name a flag's camelCase name
     * \return its value as given on the command line, or its default's text
     */
    std::string ValueText(const std::string& name) const
    {
        auto g = m_given.find(name);
        if (g != m_given.end())
        {
            return g->second;
        }
        auto d = m_default.find(name);
        return d == m_default.end() ? "" : d->second;
    }

    /**
     * \param name a flag's camelCase name
     * \return whether it was given on the command line
     */
    bool IsGiven(const std::string& name) const
    {
        return m_given.count(name) > 0;
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
     * \brief Print "<program>: warning: <msg>" on stderr; before Checked(), only then (a
     *        Fail() in between drops it: a user error prints one line).
     * \param msg the warning
     */
    void Warn(const std::string& msg)
    {
        m_warnings.push_back(m_program + ": warning: " + msg);
        if (m_checked)
        {
            Checked();
        }
    }

    /**
     * \brief Every flag is checked (call it after the program's last check, before it builds
     *        or prints anything): print the warnings held back until now.
     */
    void Checked()
    {
        m_checked = true;
        for (const auto& w : m_warnings)
        {
            std::cerr << w << std::endl;
        }
        m_warnings.clear();
    }

    /**
     * \brief Stop (exit 2, one line) unless --k is a fat-tree arity (FatTreeArity) and
     *        --senders is 1 .. the hosts outside pod 0: the incast examples' senders.
     * \param k --k's value
     * \param senders --senders's value
     * \return the hosts of a pod (the senders are the hosts from there on)
     */
    uint32_t IncastSenders(uint32_t k, uint32_t senders) const
    {
        FatTreeArity("k", k);
        const uint32_t hosts = k * k * k / 4;
        const uint32_t perPod = hosts / k;
        InRange<uint32_t>("senders", senders, 1, hosts - perPod, "the hosts of the other pods");
        return perPod;
    }

    /**
     * \brief Rewrite the deprecated spellings (one warning each), stop (exit 2, one line) on an
     *        unknown flag, a missing value, a value not of the flag's type or an argument that
     *        is not a flag; set the ns-3 defaults and globals given (--ns3::Type::Attribute=v,
     *        --RngRun=v, ...: a bad one stops the same way); then let ns3::CommandLine parse
     *        (--help and ns-3's --Print* options as ns-3 does them).
     * \param argc argument count
     * \param argv arguments
     */
    void Parse(int argc, char* argv[])
    {
        for (const auto& [old, name] : m_renamed)
        {
            if (!m_names.count(name) || m_names.count(old))
            {
                std::cerr << m_program << ": program error: the old spelling --" << old
                          << " names no flag of its own (--" << name << ")" << std::endl;
                std::abort();
            }
        }
        std::vector<std::string> args;
        std::vector<std::pair<std::string, std::string>> removed; // name, value
        std::set<std::string> warned;
        std::map<std::string, std::string> seen; // flag (its current name) -> argument
        for (int i = 0; i < argc; ++i)
        {
            std::string a = argv[i];
            const size_t dashes = a.compare(0, 2, "--") == 0  ? 2
                                  : a.compare(0, 1, "-") == 0 ? 1
                                                              : 0;
            const size_t eq = a.find('=');
            const std::string name = a.substr(dashes, eq == std::string::npos ? eq : eq - dashes);
            const std::string value = eq == std::string::npos ? "" : a.substr(eq + 1);
            auto r = m_renamed.find(name);
            const std::string current = r != m_renamed.end() ? r->second : name;
            if (i > 0 && dashes > 0 && !Ns3Options().count(current) &&
                !seen.emplace(current, a).second)
            {
                // the last one would win without a word (--Bytes and --bytes are one flag)
                Fail("--" + current + " is given twice (" + seen.at(current) + " and " + a +
                     "; give it once)");
            }
            if (i > 0 && dashes > 0 && m_removed.count(name))
            {
                removed.emplace_back(name, value);
                continue;
            }
            if (i > 0 && dashes > 0 && r != m_renamed.end())
            {
                if (warned.insert(name).second)
                {
                    Warn("--" + name + " is deprecated: use --" + r->second +
                         " (the PascalCase spellings go away in the next release)");
                }
                a = "--" + r->second + (eq == std::string::npos ? "" : "=" + value);
            }
            if (i == 0 || Check(a, dashes, eq == std::string::npos))
            {
                args.push_back(a);
            }
        }
        m_cmd.Parse(args);
        for (const auto& [name, value] : removed)
        {
            m_removed.at(name)(value);
        }
    }

  private:
    /// \return ns-3's own options, which ns3::CommandLine handles (--help, --Print*)
    static const std::set<std::string>& Ns3Options()
    {
        static const std::set<std::string> options = {"help",
                                                      "PrintHelp",
                                                      "PrintGlobals",
                                                      "PrintGroups",
                                                      "PrintGroup",
                                                      "PrintTypeIds",
                                                      "PrintAttributes",
                                                      "PrintVersion",
                                                      "version"};
        return options;
    }

    /**
     * \brief Check one argument (after the deprecated spellings are rewritten); apply it if
     *        it is an ns-3 default or global.
     * \param a the argument
     * \param dashes its leading dashes (0: not a flag)
     * \param noValue whether it has no "=value"
     * \return whether ns3::CommandLine is to parse it (a flag or ns-3's --help, --Print*),
     *         false for an ns-3 default or global (set here)
     */
    bool Check(const std::string& a, size_t dashes, bool noValue)
    {
        if (dashes == 0)
        {
            Fail("'" + a + "' is not allowed (flags are --name=value; --help lists them)");
        }
        const size_t eq = a.find('=');
        const std::string name = a.substr(dashes, noValue ? std::string::npos : eq - dashes);
        const std::string value = noValue ? "" : a.substr(eq + 1);
        ns3::TypeId tid;
        if (name == "PrintAttributes" && !ns3::TypeId::LookupByNameFailSafe(value, &tid))
        {
            Fail("--PrintAttributes=" + value +
                 " is not allowed (the name of an ns-3 TypeId: see --PrintTypeIds)");
        }
        if (Ns3Options().count(name))
        {
            return true;
        }
        if (m_names.count(name))
        {
            std::string what;
            if (noValue && !m_isBool.at(name))
            {
                Fail("--" + name + " needs a value (--" + name + "=VALUE)");
            }
            // (a switch given as --name, without "=", is true; "--name=" is no value)
            const bool ok = noValue || m_check.at(name)(value, what);
            if (value.find_first_of(" \t\n\r\v\f") != std::string::npos)
            {
                // ns3::CommandLine would read up to the first space and drop the rest
                Fail("--" + name + "=" + value + " is not allowed (" +
                     (what.empty() ? "a value without spaces" : what + ", without spaces") + ")");
            }
            if (!ok)
            {
                Fail("--" + name + "=" + value + " is not allowed (" + what + ")");
            }
            m_given[name] = value;
            auto setEmpty = m_setEmpty.find(name);
            if (!noValue && value.empty() && setEmpty != m_setEmpty.end())
            {
                setEmpty->second();
                return false;
            }
            return true;
        }
        const std::string arg = "--" + name + "=" + value;
        for (const auto& [owned, flag] : m_owned)
        {
            const bool prefix = owned.size() > 2 && owned.compare(owned.size() - 2, 2, "::") == 0;
            if (prefix ? name.compare(0, owned.size(), owned) == 0 : name == owned)
            {
                Fail(arg + " is not allowed (the program sets " + name +
                     (flag.empty() ? " itself" : " from --" + flag + ": use --" + flag) + ")");
            }
        }
        const size_t pos = name.rfind("::");
        if (pos != std::string::npos)
        {
            if (!ns3::TypeId::LookupByNameFailSafe(name.substr(0, pos), &tid))
            {
                Fail(arg + " is not allowed (" + name.substr(0, pos) +
                     " is not an ns-3 TypeId: see --PrintTypeIds)");
            }
            ns3::TypeId::AttributeInformation info;
            if (!tid.LookupAttributeByName(name.substr(pos + 2), &info) ||
                !(info.flags & ns3::TypeId::ATTR_CONSTRUCT))
            {
                Fail(arg + " is not allowed (" + tid.GetName() + " has no attribute " +
                     name.substr(pos + 2) +
                     " with a default: see --PrintAttributes=" + tid.GetName() + ")");
            }
            if (!ValueSyntaxOk(info.checker->GetValueTypeName(), value) ||
                !info.checker->CreateValidValue(ns3::StringValue(value)))
            {
                Fail(arg + " is not allowed (" + info.checker->GetUnderlyingTypeInformation() +
                     ")");
            }
            const bool signedTime = !value.empty() && (value[0] == '-' || value[0] == '+');
            if (info.checker->GetValueTypeName() == "ns3::TimeValue" &&
                !IsWholeNanoseconds(signedTime ? value.substr(1) : value))
            {
                // ns-3 would round it to the simulator's resolution without a word
                Fail(arg + " is not allowed (" + WHOLE_NANOSECONDS + ")");
            }
            if (tid.HasConstructor() && tid.IsChildOf(ns3::Object::GetTypeId()) &&
                !ConstructsInChild(tid, info.name, value))
            {
                Fail(arg + " is not allowed (" + tid.GetName() + " refuses it)");
            }
            ns3::Config::SetDefault(name, ns3::StringValue(value));
            return false;
        }
        for (auto it = ns3::GlobalValue::Begin(); it != ns3::GlobalValue::End(); ++it)
        {
            if ((*it)->GetName() == name)
            {
                ns3::Ptr<const ns3::AttributeChecker> checker = (*it)->GetChecker();
                // (a SimulatorImplementationType or SchedulerType of no such type crashed)
                const std::string unknown = UnknownTypeOfGlobal(name, value);
                if (!unknown.empty() || !ValueSyntaxOk(checker->GetValueTypeName(), value) ||
                    !checker->CreateValidValue(ns3::StringValue(value)) ||
                    !ns3::GlobalValue::BindFailSafe(name, ns3::StringValue(value)))
                {
                    Fail(arg + " is not allowed (ns-3's global " + name + ": " +
                         (unknown.empty() ? checker->GetUnderlyingTypeInformation() : unknown) +
                         ")");
                }
                return false;
            }
        }
        Fail("--" + name + " is not a flag of " + m_program + " (--help lists them)");
    }

    /**
     * \brief Whether an object of the type can be created with the attribute set to the
     *        value: tried in a child process (whose messages are not shown), as some setters
     *        stop the run on values their checker accepts. A type that cannot be created
     *        with its defaults is not tried (true).
     * \param tid the type
     * \param attr the attribute
     * \param value its value
     * \return false if the object refuses the value
     */
    static bool ConstructsInChild(ns3::TypeId tid,
                                  const std::string& attr,
                                  const std::string& value)
    {
        auto tryCreate = [&](bool withValue) {
            const ChildRun run = RunInChild([&]() {
                ns3::ObjectFactory factory;
                factory.SetTypeId(tid);
                if (withValue)
                {
                    factory.Set(attr, ns3::StringValue(value));
                }
                factory.Create();
            });
            return !run.failure.empty() || run.ExitedCleanly(); // no child: let the run decide
        };
        return !tryCreate(false) || tryCreate(true);
    }

    ns3::CommandLine m_cmd;                                                   //!< ns-3's parser
    std::string m_program;                                                    //!< for messages
    std::set<std::string> m_names;                                            //!< current flags
    std::map<std::string, std::string> m_renamed;                             //!< old -> new
    std::map<std::string, std::function<void(const std::string&)>> m_removed; //!< old flags
    /// per flag: whether a text is a value of its type (and what one looks like)
    std::map<std::string, std::function<bool(const std::string&, std::string&)>> m_check;
    std::map<std::string, std::string> m_owned; //!< ns-3 defaults the program sets -> flag
    std::map<std::string, bool> m_isBool;       //!< per flag: bool (takes no value)
    /// per text flag: set its value to "" (which ns3::CommandLine does not take)
    std::map<std::string, std::function<void()>> m_setEmpty;
    std::map<std::string, std::string> m_default; //!< per flag: its default's text
    std::map<std::string, std::string> m_given;   //!< per flag given: its value as given
    std::vector<std::string> m_warnings;          //!< warning lines held back until Checked()
    bool m_checked = false;                       //!< Checked() was called
};

} // namespace aitexample

#endif // AIT_EXAMPLE_COMMAND_LINE_H
