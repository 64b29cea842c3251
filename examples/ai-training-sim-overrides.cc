/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ai-training-sim: the check of an ns-3 override (--ns3::Type::Attribute=value, or an ns-3
 * global such as --SchedulerType=value) before anything is built: the attribute exists, is not
 * one a flag sets, and its value is valid for ns-3's parser, its checker and the object's own
 * setters (tried in a child process, as some of them stop the program instead of refusing).
 * See ai-training-sim-options.h.
 */
#include "ai-training-sim-options.h"
#include "child-process.h"
#include "example-flag-syntax.h"

#include "ns3/decimal-text.h"

#include <cstdlib>
#include <functional>
#include <map>
#include <string>
#include <sys/wait.h>

using namespace ns3;

namespace aitsim
{

namespace
{

/// ns-3 attributes the program sets from one of its flags: an override would be clobbered.
const std::map<std::string, std::string> OWNED = {
    {"ns3::RdmaNic::CongestionControl", "cc"},
    {"ns3::RdmaNic::LossRecovery", "lossRecovery"},
    {"ns3::RdmaNic::Transport", "transport"},
    {"ns3::UetTransport::ReceiverCredit", "uetCredit"},
    {"ns3::RdmaNic::Mtu", "mtu"},
    {"ns3::RdmaNic::EcnCapable", "ecn"},
    {"ns3::SwitchMmu::EcnEnabled", "ecn"},
    {"ns3::SwitchMmu::LosslessPriorities", "pfc"},
    {"ns3::SwitchMmu::BufferSize", "bufferSize"},
    {"ns3::RoceSwitch::LoadBalancing", "lb"},
    {"ns3::Communicator::Algorithm", "algorithm"},
    {"ns3::Communicator::Channels", "channels"},
    {"ns3::Communicator::QpsPerConnection", "qpsPerConnection"},
    {"ns3::Communicator::GpusPerServer", "gpusPerServer"},
    {"ns3::RoceNetDevice::DataRate", "linkRate"},
    {"ns3::RoceChannel::Delay", "linkDelay"},
    {"ns3::TransformerModel::Layers", "layers"},
    {"ns3::TransformerModel::HiddenSize", "hidden"},
    {"ns3::TransformerModel::SequenceLength", "seqLength"},
    {"RngSeed", "seed"},
    {"RngRun", "run"},
};

/// The value's text for a strict syntax check of an override (ns-3's own parsers accept junk
/// such as "4.5" for an integer, wrap "-1", or abort on a bad time).
bool
OverrideSyntaxOk(const std::string& type, const std::string& v)
{
    if (type == "ns3::UintegerValue")
    {
        return !v.empty() && v.size() <= 20 &&
               v.find_first_not_of("0123456789") == std::string::npos;
    }
    if (type == "ns3::IntegerValue")
    {
        const std::string d = !v.empty() && v[0] == '-' ? v.substr(1) : v;
        return !d.empty() && d.size() <= 19 &&
               d.find_first_not_of("0123456789") == std::string::npos;
    }
    if (type == "ns3::DoubleValue")
    {
        const std::string d = !v.empty() && v[0] == '-' ? v.substr(1) : v;
        return IsDecimal(d);
    }
    if (type == "ns3::BooleanValue")
    {
        return v == "true" || v == "false" || v == "1" || v == "0";
    }
    if (type == "ns3::TimeValue")
    {
        Time t;
        return TryTime(!v.empty() && (v[0] == '-' || v[0] == '+') ? v.substr(1) : v, &t);
    }
    if (type == "ns3::DataRateValue")
    {
        DataRate r;
        return TryRate(v, &r);
    }
    return true;
}

/// checker->CreateValidValue(value), in a child process: ns-3's parsers of some value types
/// stop the program instead of refusing (a DataRate with a space aborts, a Mac48Address
/// throws, a pointer attribute from text crashes). \return whether the value is valid
bool
ValidValue(Ptr<const AttributeChecker> checker, const std::string& value)
{
    const aitexample::ChildRun run = aitexample::RunInChild(
        [&]() { std::exit(checker->CreateValidValue(StringValue(value)) ? 0 : 3); });
    if (!run.failure.empty())
    {
        return false; // no child could be made: refuse rather than risk it
    }
    return run.ExitedCleanly();
}

/// Create an object of the type (with the override, if withValue) in a child process: the
/// setters of some attributes stop the run on values their checker accepts. Returns "" if that
/// worked, else the type's own message.
std::string
TrialConstruct(TypeId tid, const std::string& attr, const std::string& value, bool withValue)
{
    return InChild([&]() {
        ObjectFactory factory;
        factory.SetTypeId(tid);
        if (withValue)
        {
            factory.Set(attr, StringValue(value));
        }
        Ptr<Object> object = factory.Create();
    });
}

/// ns-3 types outside the module that the study creates (besides the module's own types).
const char* const CREATED_NS3_TYPES[] = {"ns3::Node",
                                         "ns3::UniformRandomVariable",
                                         "ns3::ExponentialRandomVariable",
                                         "ns3::RateErrorModel",
                                         "ns3::PcapFileWrapper",
                                         "ns3::MpiReceiver"};

/**
 * \param tid a type
 * \return whether the study creates objects of the type or of a subclass of it: the module's
 *         types (group AiTraining), the ns-3 types of CREATED_NS3_TYPES and their parents
 */
bool
StudyCreates(TypeId tid)
{
    const auto isOrHasParent = [tid](TypeId t) {
        for (;; t = t.GetParent())
        {
            if (t == tid)
            {
                return true;
            }
            if (t == t.GetParent())
            {
                return false;
            }
        }
    };
    for (const char* name : CREATED_NS3_TYPES)
    {
        TypeId t;
        if (TypeId::LookupByNameFailSafe(name, &t) && isOrHasParent(t))
        {
            return true;
        }
    }
    for (uint16_t i = 0; i < TypeId::GetRegisteredN(); ++i)
    {
        const TypeId t = TypeId::GetRegistered(i);
        if (t.GetGroupName() == "AiTraining" && isOrHasParent(t))
        {
            return true;
        }
    }
    return false;
}

} // namespace

std::string
InChild(const std::function<void()>& work)
{
    const aitexample::ChildRun run = aitexample::RunInChild(work);
    if (!run.failure.empty() || run.ExitedCleanly())
    {
        return ""; // no child could be made: let the run itself decide
    }
    const std::string& text = run.err;
    size_t a = text.find("msg=\"");
    if (a == std::string::npos)
    {
        const int status = run.status;
        return "it stops the simulation (exit status " +
               std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status)) +
               ")";
    }
    a += 5;
    const std::string msg = text.substr(a, text.find("\", ", a) - a);
    return msg.substr(0, msg.find('\n'));
}

Override
CheckOverride(const std::string& name, const std::string& value)
{
    const std::string arg = Arg(name, value);
    auto owned = OWNED.find(name);
    if (owned != OWNED.end())
    {
        Fail(arg + " is set by the program from --" + owned->second + ": use --" + owned->second +
             " instead");
    }
    const size_t pos = name.rfind("::");
    if (pos == std::string::npos)
    {
        for (auto it = GlobalValue::Begin(); it != GlobalValue::End(); ++it)
        {
            if ((*it)->GetName() == name)
            {
                // a name of no such type would stop the run when it starts
                const std::string unknown = aitexample::UnknownTypeOfGlobal(name, value);
                if (!unknown.empty())
                {
                    Fail(arg + " is not a valid value of ns-3's global " + name + " (" + unknown +
                         ")");
                }
                Ptr<const AttributeChecker> checker = (*it)->GetChecker();
                if (!OverrideSyntaxOk(checker->GetValueTypeName(), value) ||
                    !ValidValue(checker, value))
                {
                    Fail(arg + " is not a valid value of ns-3's global " + name + " (" +
                         checker->GetUnderlyingTypeInformation() + ")");
                }
                return {name, value, true};
            }
        }
        Fail("--" + name + " is not a flag of ai-training-sim (see --help)");
    }
    TypeId tid;
    if (!TypeId::LookupByNameFailSafe(name.substr(0, pos), &tid))
    {
        Fail(arg + ": " + name.substr(0, pos) +
             " is not an ns-3 TypeId (overrides are --ns3::Type::Attribute=value; see "
             "--PrintTypeIds)");
    }
    if (!StudyCreates(tid))
    {
        // ns-3 takes the default, and nothing the study builds reads it
        Fail(arg + ": the study creates no " + tid.GetName() +
             " (its objects are the module's types, see --PrintGroup=AiTraining, and ns-3's "
             "nodes, random variables, error models and pcap files)");
    }
    TypeId::AttributeInformation info;
    if (!tid.LookupAttributeByName(name.substr(pos + 2), &info))
    {
        Fail(arg + ": " + tid.GetName() + " has no attribute " + name.substr(pos + 2) +
             " (see --PrintAttributes=" + tid.GetName() + ")");
    }
    if (!(info.flags & TypeId::ATTR_CONSTRUCT))
    {
        Fail(arg + ": " + name +
             " cannot be set as a default (it is not a construction "
             "attribute)");
    }
    const std::string type = info.checker->GetValueTypeName();
    if (type == "ns3::TimeValue" && OverrideSyntaxOk(type, value) &&
        !aitexample::IsWholeNanoseconds(
            !value.empty() && (value[0] == '-' || value[0] == '+') ? value.substr(1) : value))
    {
        // ns-3 would round it to the simulator's resolution without a word
        Fail(arg + " is not a valid value of " + name +
             " (a time of whole nanoseconds, the simulator's resolution)");
    }
    if (!OverrideSyntaxOk(type, value) || !ValidValue(info.checker, value))
    {
        Fail(arg + " is not a valid value of " + name + " (" +
             info.checker->GetUnderlyingTypeInformation() + ")");
    }
    if (tid.HasConstructor() && tid.IsChildOf(Object::GetTypeId()) &&
        TrialConstruct(tid, info.name, value, false).empty())
    {
        const std::string why = TrialConstruct(tid, info.name, value, true);
        if (!why.empty())
        {
            Fail(arg + " is refused by " + tid.GetName() + ": " + why);
        }
    }
    return {name, value, false};
}

} // namespace aitsim
