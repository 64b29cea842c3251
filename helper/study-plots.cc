/* SPDX-License-Identifier: GPL-2.0-only */
#include "study-plots.h"

#include "csv-row-reader.h"
#include "fct-report.h"

#include "ns3/fatal-error.h"
#include "ns3/log.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <sys/wait.h>
#include <tuple>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("StudyPlots");

namespace
{

/// A figure that could not be written (what(): one line naming the file and why); caught by
/// PlotAll and Plot, which report it or stop the program.
class PlotError : public std::runtime_error
{
  public:
    using std::runtime_error::runtime_error;
};

/// Quote a path for the shell (single quotes).
std::string
ShellQuote(const std::string& s)
{
    std::string out = "'";
    for (char c : s)
    {
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    }
    return out + "'";
}

/// Colours of the series (the "tab10" palette), as gnuplot linetypes 1..10.
const char* const PALETTE = "set linetype 1 lc rgb '#1f77b4' lw 2 pt 7\n"
                            "set linetype 2 lc rgb '#ff7f0e' lw 2 pt 5\n"
                            "set linetype 3 lc rgb '#2ca02c' lw 2 pt 9\n"
                            "set linetype 4 lc rgb '#d62728' lw 2 pt 11\n"
                            "set linetype 5 lc rgb '#9467bd' lw 2 pt 13\n"
                            "set linetype 6 lc rgb '#8c564b' lw 2 pt 7\n"
                            "set linetype 7 lc rgb '#e377c2' lw 2 pt 5\n"
                            "set linetype 8 lc rgb '#7f7f7f' lw 2 pt 9\n"
                            "set linetype 9 lc rgb '#bcbd22' lw 2 pt 11\n"
                            "set linetype 10 lc rgb '#17becf' lw 2 pt 13\n"
                            "set linetype cycle 10\n";

/// Times in a figure: us below 2 ms of span, else ms.
struct TimeUnit
{
    double div;       //!< ns per unit
    const char* name; //!< us|ms
};

TimeUnit
UnitFor(double spanNs)
{
    return spanNs < 2e6 ? TimeUnit{1e3, "us"} : TimeUnit{1e6, "ms"};
}

/// The colour (linetype) of a parallel group in every figure: compute 1, dp 2, tp 3, pp 4, ep 5,
/// dp_ep 6, world 7, others 8.
int
GroupColor(const std::string& group)
{
    static const std::vector<std::string> order = {"dp", "tp", "pp", "ep", "dp_ep", "world"};
    auto it = std::find(order.begin(), order.end(), group);
    return it == order.end() ? 8 : 2 + static_cast<int>(it - order.begin());
}

/**
 * Tics of a log axis from lo to hi: 1, 2, 5 x 10^k (1, 1.5, 2, 3, 5, 7 x 10^k when that gives
 * fewer than 4), as a gnuplot tic list: ("1" 1, "2" 2, ...).
 */
std::string
LogTics(double lo, double hi)
{
    std::string best;
    for (const std::vector<double>& mantissas :
         {std::vector<double>{1, 2, 5}, std::vector<double>{1, 1.5, 2, 3, 5, 7}})
    {
        std::string list;
        int n = 0;
        for (int e = -9; e <= 12; ++e)
        {
            for (double m : mantissas)
            {
                const double v = m * std::pow(10.0, e);
                if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9))
                {
                    char buf[64];
                    std::snprintf(buf, sizeof(buf), "%s\"%g\" %g", n ? ", " : "", v, v);
                    list += buf;
                    ++n;
                }
            }
        }
        best = "(" + list + ")";
        if (n >= 4)
        {
            break;
        }
    }
    return best;
}

} // namespace

// ------------------------------------------------------------------ configuration

StudyPlots::StudyPlots()
    : m_format("png"),
      m_topQueues(4)
{
}

bool
StudyPlots::SetFormat(const std::string& format)
{
    if (format != "png" && format != "svg" && format != "pdf")
    {
        return false;
    }
    m_format = format;
    return true;
}

std::string
StudyPlots::GetFormat() const
{
    return m_format;
}

void
StudyPlots::SetTopQueues(uint32_t n)
{
    if (n < 1 || n > 16)
    {
        NS_FATAL_ERROR("StudyPlots::SetTopQueues: " << n << " is not allowed (1..16)");
    }
    m_topQueues = n;
}

void
StudyPlots::SetTierNames(const std::vector<std::string>& names)
{
    m_tierNames = names;
}

void
StudyPlots::SetRunLabel(const std::string& label)
{
    m_runLabel = label;
}

bool
StudyPlots::HaveGnuplot()
{
    return std::system("command -v gnuplot >/dev/null 2>&1") == 0;
}

std::vector<std::string>
StudyPlots::GetFigureNames()
{
    return {"steps",
            "collectives",
            "fct-cdf",
            "slowdown-cdf",
            "slowdown-buckets",
            "queues",
            "pfc",
            "utilization",
            "qp-rate"};
}

// ------------------------------------------------------------------ files

int
StudyPlots::Csv::Col(const std::string& name) const
{
    for (std::size_t i = 0; i < header.size(); ++i)
    {
        if (header[i] == name)
        {
            return static_cast<int>(i);
        }
    }
    return -1;
}

bool
StudyPlots::ReadCsv(const std::string& path, Csv& csv)
{
    csv = Csv();
    CsvRowReader in;
    if (!in.Open(path))
    {
        return false;
    }
    csv.header = in.GetHeader();
    while (in.Next())
    {
        std::vector<std::string> row;
        for (std::size_t i = 0; i < in.GetFieldCount(); ++i)
        {
            row.emplace_back(in.Text(static_cast<int>(i)));
        }
        csv.rows.push_back(std::move(row));
    }
    return true;
}

void
StudyPlots::WriteFile(const std::string& path, const std::string& text)
{
    errno = 0;
    std::ofstream f(path, std::ios::out | std::ios::trunc | std::ios::binary);
    f << text;
    f.close();
    if (!f)
    {
        throw PlotError("writing the file '" + path + "' failed" +
                        (errno ? std::string(": ") + std::strerror(errno) : std::string()));
    }
}

bool
StudyPlots::IsCompleteImage(const std::string& path)
{
    const size_t dot = path.rfind('.');
    const std::string format = dot == std::string::npos ? "" : path.substr(dot + 1);
    std::error_code ec;
    if ((format != "png" && format != "svg" && format != "pdf") ||
        !std::filesystem::is_regular_file(path, ec))
    {
        return false;
    }
    std::ifstream f(path, std::ios::binary);
    f.seekg(0, std::ios::end);
    const std::streamoff size = f.tellg();
    const std::streamoff n = std::min<std::streamoff>(size, 64);
    if (!f || n <= 0)
    {
        return false;
    }
    std::string tail(n, '\0');
    f.seekg(size - n);
    f.read(&tail[0], n);
    if (!f)
    {
        return false;
    }
    if (format == "png")
    {
        // the IEND chunk: length 0, type, CRC
        static const std::string iend("\0\0\0\0IEND\xae\x42\x60\x82", 12);
        return tail.size() >= iend.size() &&
               tail.compare(tail.size() - iend.size(), iend.size(), iend) == 0;
    }
    return tail.find(format == "svg" ? "</svg>" : "%%EOF") != std::string::npos;
}

std::string
StudyPlots::Quote(const std::string& s)
{
    std::string out = "\"";
    for (char c : s)
    {
        if (c == '"' || c == '\\')
        {
            out += '\\';
        }
        out += c;
    }
    return out + "\"";
}

std::string
StudyPlots::Fmt(const char* fmt, double v)
{
    char buf[64];
    std::snprintf(buf, sizeof(buf), fmt, v);
    return buf;
}

std::string
StudyPlots::TierName(uint32_t tier) const
{
    return tier < m_tierNames.size() ? m_tierNames[tier] : "tier " + std::to_string(tier);
}

std::string
StudyPlots::Preamble(const std::string& name, uint32_t width, uint32_t height) const
{
    std::ostringstream gp;
    gp << "# " << name << "." << m_format << ": cd to this directory and run gnuplot " << name
       << ".gp\n";
    if (m_format == "png")
    {
        gp << "set terminal pngcairo size " << width << "," << height
           << " font \"Sans,13\" noenhanced\n";
    }
    else if (m_format == "svg")
    {
        gp << "set terminal svg size " << width << "," << height
           << " font \"Sans,13\" noenhanced background rgb \"white\"\n";
    }
    else
    {
        gp << "set terminal pdfcairo size " << Fmt("%.2f", width / 100.0) << "in,"
           << Fmt("%.2f", height / 100.0) << "in font \"Sans,10\" noenhanced\n";
    }
    gp << "set output " << Quote(name + "." + m_format) << "\n"
       << PALETTE << "set grid back lt 1 lc rgb '#dddddd' lw 1 dt 1\nset border lw 1.2\n"
       << "set key outside right top vertical Left reverse samplen 2\n";
    return gp.str();
}

void
StudyPlots::Draw(const std::string& dir,
                 const std::string& name,
                 const std::string& dat,
                 const std::string& gp) const
{
    WriteFile(dir + "/" + name + ".dat", dat);
    WriteFile(dir + "/" + name + ".gp", gp);
    const std::string log = name + ".log";
    const std::string cmd = "cd " + ShellQuote(dir) + " && gnuplot " + ShellQuote(name + ".gp") +
                            " >" + ShellQuote(log) + " 2>&1";
    const int rc = std::system(cmd.c_str());
    if (rc != 0)
    {
        // system()'s status: gnuplot's own exit status, or the signal that ended it
        const std::string how = rc == -1        ? "could not be started"
                                : WIFEXITED(rc) ? "exit status " + std::to_string(WEXITSTATUS(rc))
                                : WIFSIGNALED(rc)
                                    ? "killed by signal " + std::to_string(WTERMSIG(rc))
                                    : "status " + std::to_string(rc);
        throw PlotError("gnuplot failed on '" + dir + "/" + name + ".gp' (" + how + "); see '" +
                        dir + "/" + log + "'");
    }
    std::remove((dir + "/" + log).c_str());
    const std::string image = dir + "/" + name + "." + m_format;
    if (!IsCompleteImage(image))
    {
        throw PlotError("writing the file '" + image + "' failed: gnuplot wrote it incomplete " +
                        "(is the disk full?)");
    }
}

void
StudyPlots::NoData(const std::string& dir, const std::string& name, const std::string& title) const
{
    std::ostringstream gp;
    gp << Preamble(name, 1000, 560) << "set title " << Quote(title) << "\n"
       << "unset key\nset xrange [0:1]\nset yrange [0:1]\nunset xtics\nunset ytics\n"
       << "set label 1 \"no data\" at graph 0.5,0.5 center font \"Sans,18\"\n"
       << "plot -1 notitle\n";
    Draw(dir, name, "# no data\n", gp.str());
}

// ------------------------------------------------------------------ all

std::vector<std::string>
StudyPlots::PlotAll(const std::string& dir) const
{
    std::string error;
    std::vector<std::string> written = PlotAll(dir, error);
    if (!error.empty())
    {
        NS_FATAL_ERROR("StudyPlots: " << error);
    }
    return written;
}

std::vector<std::string>
StudyPlots::PlotAll(const std::string& dir, std::string& error) const
{
    std::vector<std::string> written;
    error.clear();
    if (!HaveGnuplot())
    {
        std::cerr << "StudyPlots: gnuplot is not installed (e.g. apt-get install gnuplot-nox); no "
                     "plots written to '"
                  << dir << "'" << std::endl;
        return written;
    }
    for (const std::string& name : GetFigureNames())
    {
        try
        {
            if (PlotFigure(dir, name))
            {
                written.push_back(name + "." + m_format);
            }
        }
        catch (const PlotError& e)
        {
            error = e.what();
            return written;
        }
    }
    return written;
}

bool
StudyPlots::Plot(const std::string& dir, const std::string& name) const
{
    try
    {
        return PlotFigure(dir, name);
    }
    catch (const PlotError& e)
    {
        NS_FATAL_ERROR("StudyPlots: " << e.what());
    }
}

bool
StudyPlots::PlotFigure(const std::string& dir, const std::string& name) const
{
    if (name == "steps")
    {
        return PlotSteps(dir);
    }
    if (name == "collectives")
    {
        return PlotCollectives(dir);
    }
    if (name == "fct-cdf" || name == "slowdown-cdf")
    {
        return PlotCdf(dir, name == "slowdown-cdf");
    }
    if (name == "slowdown-buckets")
    {
        return PlotBuckets(dir);
    }
    if (name == "queues")
    {
        return PlotQueues(dir);
    }
    if (name == "pfc")
    {
        return PlotPfc(dir);
    }
    if (name == "utilization")
    {
        return PlotUtilization(dir);
    }
    if (name == "qp-rate")
    {
        return PlotQpRate(dir);
    }
    NS_FATAL_ERROR("StudyPlots::Plot: no figure '" << name << "'");
}

// ------------------------------------------------------------------ steps

bool
StudyPlots::PlotSteps(const std::string& dir) const
{
    CsvRowReader c;
    if (!c.Open(dir + "/steps.csv"))
    {
        return false;
    }
    const int cJob = c.Col("job");
    const int cStep = c.Col("step");
    const int cDur = c.Col("duration_ns");
    const int cBusiest = c.Col("compute_ns");
    // the mean over ranks (all parts then are means; older files: the busiest rank's)
    const int cComp = c.Col("compute_mean_ns") >= 0 ? c.Col("compute_mean_ns") : cBusiest;
    // the exposed_<group>_ns columns, then those with time in them
    std::vector<std::pair<std::string, int>> exposed;
    for (std::size_t i = 0; i < c.GetHeader().size(); ++i)
    {
        const std::string& h = c.GetHeader()[i];
        if (h.rfind("exposed_", 0) == 0 && h.size() > 11)
        {
            exposed.emplace_back(h.substr(8, h.size() - 11), static_cast<int>(i));
        }
    }
    std::vector<bool> any(exposed.size(), false);
    std::set<std::string> jobs;
    double maxDur = 0;
    std::size_t n = 0;
    while (c.Next())
    {
        ++n;
        for (std::size_t g = 0; g < exposed.size(); ++g)
        {
            any[g] = any[g] || c.Num(exposed[g].second) > 0;
        }
        jobs.emplace(c.Text(cJob));
        maxDur = std::max(maxDur, c.Num(cDur));
    }
    if (n == 0)
    {
        return false;
    }
    std::vector<std::pair<std::string, int>> groups;
    for (std::size_t g = 0; g < exposed.size(); ++g)
    {
        if (any[g])
        {
            groups.push_back(exposed[g]);
        }
    }
    const TimeUnit u = UnitFor(maxDur);
    std::ostringstream dat;
    dat << "# label job step compute";
    for (const auto& g : groups)
    {
        dat << " exposed_" << g.first;
    }
    dat << " other step_time busiest_compute (" << u.name
        << "; means over the ranks: compute, exposed = the time their compute waited for the "
           "group, other = step_time - compute - exposed; busiest_compute: the busiest rank's "
           "compute)\n";
    c.Rewind();
    while (c.Next())
    {
        const std::string job(c.Text(cJob));
        const std::string step(c.Text(cStep));
        const std::string label = jobs.size() > 1 ? "j" + job + "/" + step : step;
        double rest = c.Num(cDur) - c.Num(cComp);
        dat << label << ' ' << job << ' ' << step << ' ' << Fmt("%.6f", c.Num(cComp) / u.div);
        for (const auto& g : groups)
        {
            dat << ' ' << Fmt("%.6f", c.Num(g.second) / u.div);
            rest -= c.Num(g.second);
        }
        dat << ' ' << Fmt("%.6f", rest / u.div) << ' ' << Fmt("%.6f", c.Num(cDur) / u.div) << ' '
            << Fmt("%.6f", c.Num(cBusiest) / u.div) << '\n';
    }
    const std::size_t every = std::max<std::size_t>(1, (n + 24) / 25);
    std::ostringstream gp;
    gp << Preamble("steps", 1100, 560) << "set title "
       << Quote("Step time: compute and exposed communication, means over the ranks (" +
                std::to_string(jobs.size()) + (jobs.size() > 1 ? " jobs, " : " job, ") +
                std::to_string(n) + (n == 1 ? " step)" : " steps)"))
       << "\nset style data histograms\nset style histogram rowstacked\n"
       << "set style fill solid 0.85 border rgb '#404040'\nset boxwidth 0.75\n"
       << "set xlabel " << Quote(jobs.size() > 1 ? "job / step" : "step") << "\n"
       << "set ylabel " << Quote(std::string("time (") + u.name + ")") << "\n"
       << "set yrange [0:*]\nset grid noxtics ytics\n"
       << "plot \"steps.dat\" using 4:xtic(int($0) % " << every
       << " == 0 ? stringcolumn(1) : \"\") lt 1 title \"compute\"";
    for (std::size_t g = 0; g < groups.size(); ++g)
    {
        gp << ", \"\" using " << 5 + g << " lt " << GroupColor(groups[g].first) << " title "
           << Quote("exposed " + groups[g].first + " communication");
    }
    gp << ", \"\" using (column(" << 5 + groups.size() << ") > 0 ? column(" << 5 + groups.size()
       << ") : 0) lc rgb '#c8c8c8' title \"other (idle)\", \"\" using ($0-0.375):"
       << 6 + groups.size()
       << ":(0.75):(0) with vectors nohead lw 2.5 lc rgb 'black' title \"step time\"\n";
    Draw(dir, "steps", dat.str(), gp.str());
    return true;
}

// ------------------------------------------------------------------ collective timeline

bool
StudyPlots::PlotCollectives(const std::string& dir) const
{
    CsvRowReader c;
    if (!c.Open(dir + "/collectives.csv"))
    {
        return false;
    }
    const int cJob = c.Col("job");
    const int cGroup = c.Col("group");
    const int cInst = c.Col("instance");
    const int cStart = c.Col("start_ns");
    const int cEnd = c.Col("end_ns");
    // lanes: (job, group, instance), sorted; one colour per group kind
    using Lane = std::tuple<uint64_t, std::string, uint64_t>;
    auto laneOf = [&c, cJob, cGroup, cInst]() {
        return Lane{static_cast<uint64_t>(c.Num(cJob)),
                    std::string(c.Text(cGroup)),
                    static_cast<uint64_t>(c.Num(cInst))};
    };
    std::map<Lane, uint32_t> lanes;
    std::vector<std::string> kinds;
    double t1 = 0;
    std::size_t rows = 0;
    while (c.Next())
    {
        ++rows;
        lanes[laneOf()] = 0;
        if (std::find(kinds.begin(), kinds.end(), c.Text(cGroup)) == kinds.end())
        {
            kinds.emplace_back(c.Text(cGroup));
        }
        t1 = std::max(t1, c.Num(cEnd));
    }
    if (rows == 0)
    {
        return false;
    }
    std::stable_sort(kinds.begin(), kinds.end(), [](const std::string& a, const std::string& b) {
        return GroupColor(a) < GroupColor(b);
    });
    const uint32_t maxLanes = 32;
    uint32_t y = 0;
    std::ostringstream ytics;
    for (auto& [key, lane] : lanes)
    {
        lane = y;
        if (y < maxLanes)
        {
            ytics << (y ? ", " : "")
                  << Quote("job " + std::to_string(std::get<0>(key)) + " " + std::get<1>(key) +
                           " " + std::to_string(std::get<2>(key)))
                  << " " << y;
        }
        ++y;
    }
    const uint32_t shown = std::min<uint32_t>(y, maxLanes);
    const TimeUnit u = UnitFor(t1);
    // the bars of each group kind, in the order of the file
    std::vector<std::ostringstream> blocks(kinds.size());
    c.Rewind();
    while (c.Next())
    {
        const uint32_t lane = lanes[laneOf()];
        const auto k = std::find(kinds.begin(), kinds.end(), c.Text(cGroup));
        if (lane < maxLanes)
        {
            blocks[k - kinds.begin()] << Fmt("%.6f", c.Num(cStart) / u.div) << ' ' << lane << ' '
                                      << Fmt("%.6f", c.Num(cEnd) / u.div) << '\n';
        }
    }
    std::ostringstream dat;
    dat << "# one block per group: start_" << u.name << " lane end_" << u.name
        << " (lanes: job, group, instance in order; the first " << shown << " drawn)\n";
    for (std::size_t k = 0; k < kinds.size(); ++k)
    {
        dat << "# group " << kinds[k] << "\n" << blocks[k].str() << "\n\n";
    }
    std::ostringstream gp;
    gp << Preamble("collectives", 1100, std::max<uint32_t>(420, 160 + 26 * shown)) << "set title "
       << Quote("Collectives per communicator, start to end (" + std::to_string(rows) +
                (rows == 1 ? " collective" : " collectives") +
                (y > shown ? ", the first " + std::to_string(shown) + " of " + std::to_string(y) +
                                 " communicators"
                           : "") +
                ")")
       << "\nset xlabel " << Quote(std::string("time (") + u.name + ")") << "\n"
       << "set ytics (" << ytics.str() << ")\nset yrange [" << shown - 0.5 << ":-0.5]\n"
       << "set grid xtics noytics\nset style fill solid 0.85 "
       // borders tell back-to-back collectives apart; with many per lane they would hide them
       << (rows > 40 * std::max<uint32_t>(shown, 1) ? "noborder" : "border rgb '#303030'")
       << "\nset xrange [0:" << Fmt("%.6f", t1 / u.div * 1.01) << "]\nplot ";
    for (std::size_t k = 0; k < kinds.size(); ++k)
    {
        gp << (k ? ", " : "") << "\"collectives.dat\" index " << k
           << " using (($1+$3)/2):2:1:3:($2-0.35):($2+0.35) with boxxyerror lt "
           << GroupColor(kinds[k]) << " title " << Quote(kinds[k]);
    }
    gp << "\n";
    Draw(dir, "collectives", dat.str(), gp.str());
    return true;
}

// ------------------------------------------------------------------ flows

bool
StudyPlots::PlotCdf(const std::string& dir, bool slowdown) const
{
    const std::string name = slowdown ? "slowdown-cdf" : "fct-cdf";
    CsvRowReader c;
    if (!c.Open(dir + "/flows.csv"))
    {
        return false;
    }
    const int col = c.Col(slowdown ? "slowdown" : "fct_ns");
    const double scale = slowdown ? 1.0 : 1e-3;
    std::vector<double> v; // the one column drawn
    while (c.Next())
    {
        v.push_back(c.Num(col) * scale);
    }
    const std::string title = slowdown ? "Slowdown (FCT / ideal FCT)" : "Flow completion time";
    if (v.empty())
    {
        NoData(dir, name, title);
        return true;
    }
    std::sort(v.begin(), v.end());
    std::ostringstream dat;
    dat << "# " << (slowdown ? "slowdown" : "fct_us")
        << " cdf (fraction of the flows of flows.csv at most this)\n"
        << Fmt("%.6g", v.front()) << " 0\n";
    const std::size_t step = std::max<std::size_t>(1, v.size() / 5000);
    for (std::size_t i = 0; i < v.size(); ++i)
    {
        if ((i + 1 < v.size() && v[i + 1] == v[i]) || (i % step != 0 && i + 1 != v.size()))
        {
            continue; // one point per distinct value (the last of equal ones)
        }
        dat << Fmt("%.6g", v[i]) << ' ' << Fmt("%.6f", (i + 1) / double(v.size())) << '\n';
    }
    std::ostringstream gp;
    gp << Preamble(name, 1000, 560) << "set title "
       << Quote(title + " (" + std::to_string(v.size()) +
                (v.size() == 1 ? " message)" : " messages)"))
       << "\n"
       << "set xlabel " << Quote(slowdown ? "slowdown (log scale)" : "FCT (us, log scale)")
       << "\nset ylabel \"CDF\"\nset yrange [0:1.02]\nset logscale x\nunset key\n"
       << "set xrange [" << Fmt("%.6g", v.front() / 1.25) << ":" << Fmt("%.6g", v.back() * 1.25)
       << "]\nset xtics " << LogTics(v.front() / 1.25, v.back() * 1.25) << "\nset mxtics default\n"
       << "plot \"" << name << ".dat\" using 1:2 with steps lw 2.5 notitle\n";
    Draw(dir, name, dat.str(), gp.str());
    return true;
}

bool
StudyPlots::PlotBuckets(const std::string& dir) const
{
    CsvRowReader c;
    if (!c.Open(dir + "/flows.csv"))
    {
        return false;
    }
    std::vector<FctReport::Sample> samples; // the two columns drawn
    const int cBytes = c.Col("bytes");
    const int cSlow = c.Col("slowdown");
    while (c.Next())
    {
        samples.push_back({static_cast<uint64_t>(c.Num(cBytes)), c.Num(cSlow)});
    }
    if (samples.empty())
    {
        return false;
    }
    const std::vector<FctReport::Bucket> buckets = FctReport::ByBucket(samples);
    if (buckets.size() < 2)
    {
        return false; // one size class: the CDF says it all
    }
    double lo = 1;
    double hi = 1;
    for (const auto& b : buckets)
    {
        lo = std::min(lo, b.p50);
        hi = std::max(hi, b.p99);
    }
    lo /= 1.15;
    hi *= 1.25;
    std::ostringstream dat;
    dat << "# bucket flows p50 p95 p99 max (slowdown per flow-size bucket, KB = 1000 B)\n";
    for (const auto& b : buckets)
    {
        dat << b.GetLabel() << ' ' << b.count << ' ' << Fmt("%.4f", b.p50) << ' '
            << Fmt("%.4f", b.p95) << ' ' << Fmt("%.4f", b.p99) << ' ' << Fmt("%.4f", b.max) << '\n';
    }
    std::ostringstream gp;
    gp << Preamble("slowdown-buckets", 1000, 560) << "set title "
       << Quote("Slowdown by flow size (" + std::to_string(samples.size()) + " flows)") << "\n"
       << "set xlabel \"flow size\"\nset ylabel \"slowdown (FCT / ideal FCT, log scale)\"\n"
       << "set logscale y\nset yrange [" << Fmt("%.6g", lo) << ":" << Fmt("%.6g", hi)
       << "]\nset ytics " << LogTics(lo, hi) << "\nset xlabel offset 0,-0.6\nset bmargin 5\n"
       << "set xrange [-0.5:" << buckets.size() - 0.5 << "]\n"
       << "plot \"slowdown-buckets.dat\" using 0:3:xtic(sprintf(\"%s\\n(%d flows)\", "
          "strcol(1), int(column(2)))) with linespoints title \"p50\", \"\" "
          "using 0:4 with linespoints title \"p95\", \"\" using 0:5 with linespoints title "
          "\"p99\"\n";
    Draw(dir, "slowdown-buckets", dat.str(), gp.str());
    return true;
}

} // namespace ns3
