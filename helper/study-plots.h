/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef STUDY_PLOTS_H
#define STUDY_PLOTS_H

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief The figures of a result directory, drawn with gnuplot from the CSV files in it.
 *
 * Every figure NAME is three files next to the CSVs: NAME.dat (the numbers drawn, with a
 * comment line naming the columns), NAME.gp (the gnuplot script; it names the .dat without a
 * directory, so `cd DIR && gnuplot NAME.gp` draws it again) and NAME.png (or .svg, .pdf:
 * SetFormat). What each figure draws and from which file:
 *
 *  - steps (steps.csv): step time per step, stacked means over the ranks: compute
 *    (compute_mean_ns; older files: compute_ns), exposed communication per parallel group, the
 *    rest (idle; not drawn when negative); the step time marked
 *  - collectives (collectives.csv): one lane per communicator (job, group, instance), a bar
 *    from start to end of each collective
 *  - fct-cdf, slowdown-cdf (flows.csv): CDFs, log x
 *  - slowdown-buckets (flows.csv): p50/p95/p99 slowdown per flow-size bucket
 *    (FctReport::ByBucket); only with flows in 2 or more buckets
 *  - queues (queues.csv): the busiest queues (largest sampled depth), one panel each
 *  - pfc (pfc.csv): pause intervals (a pause to the next resume) of each paused switch port and
 *    priority
 *  - utilization (link-tiers.csv): utilisation of each link tier and direction over time
 *  - qp-rate (qp-trace.csv): rate (and window, when the algorithm has one) of the traced QPs;
 *    CNP arrivals
 *
 * A figure whose CSV is missing is skipped; one whose CSV has no rows is drawn as "no data"
 * (steps, collectives and qp-rate: skipped). The CSVs are read a row at a time (CsvRowReader),
 * in two passes where a figure needs a first look at the whole file (the busiest queues, the
 * longest-paused ports, the time axis): what a figure keeps is what it draws, plus a few numbers
 * per queue, port or series (the CDFs: the flows' values, sorted).
 */
class StudyPlots
{
  public:
    StudyPlots();

    /**
     * \brief Choose the image format.
     * \param format png (pngcairo), svg or pdf (pdfcairo)
     * \return false (and nothing changed) for anything else
     */
    bool SetFormat(const std::string& format);
    /// \return the image format (the file extension)
    std::string GetFormat() const;
    /// \param n how many queues the queues figure draws (the deepest first; 1..16)
    void SetTopQueues(uint32_t n);
    /**
     * \param names legend names of link tiers 0, 1, ... (e.g. host-edge, edge-agg, agg-core);
     *        a tier without a name is "tier N"
     */
    void SetTierNames(const std::vector<std::string>& names);
    /// \param label what the qp-rate title says about the run (e.g. "--cc=dcqcn"; "" nothing)
    void SetRunLabel(const std::string& label);

    /// \return whether gnuplot can be run
    static bool HaveGnuplot();

    /**
     * \brief Whether an image file is complete: a regular file that ends as a file of its
     *        format (its extension) ends: a PNG's IEND chunk, an SVG's closing tag, a PDF's
     *        %%EOF. gnuplot exits 0 even when its own writes failed (a full disk), so every
     *        figure is checked with this after gnuplot ran.
     * \param path a .png, .svg or .pdf file
     * \return false for a missing, cut or non-regular file, or another extension
     */
    static bool IsCompleteImage(const std::string& path);

    /**
     * \brief Draw every figure the CSV files of a directory allow.
     * \param dir the result directory
     * \return the image files written (names without the directory); empty if gnuplot is not
     *         installed (a line on stderr says so). A failing gnuplot is a fatal error naming
     *         the script and its log (NAME.log), and so is a file that could not be written
     *         whole (a .dat or .gp file, or an image gnuplot left incomplete: a full disk).
     */
    std::vector<std::string> PlotAll(const std::string& dir) const;

    /**
     * \brief PlotAll(dir), reporting a figure that could not be drawn instead of stopping the
     *        program: for a program that says so itself (and exits with its own status).
     *
     * The first figure whose files cannot be written whole, or whose gnuplot fails, ends the
     * call; the figures before it stay written.
     * \param dir the result directory
     * \param [out] error "" if every figure was drawn; else one line naming the file and why
     *        (e.g. "writing the file 'out/steps.png' failed: gnuplot wrote it incomplete (is
     *        the disk full?)")
     * \return the image files written before any failure
     */
    std::vector<std::string> PlotAll(const std::string& dir, std::string& error) const;

    /**
     * \brief Draw one figure (see the table above).
     * \param dir the result directory
     * \param name steps|collectives|fct-cdf|slowdown-cdf|slowdown-buckets|queues|pfc|
     *        utilization|qp-rate
     * \return whether it was drawn (false: its CSV is missing or, for some, empty). As in
     *         PlotAll(dir), a file that cannot be written whole or a failing gnuplot is a fatal
     *         error.
     */
    bool Plot(const std::string& dir, const std::string& name) const;

    /// \return the figure names of PlotAll, in order
    static std::vector<std::string> GetFigureNames();

    /// A CSV file: its header and rows, split at commas (as CsvRowReader splits them).
    struct Csv
    {
        std::vector<std::string> header;            //!< column names
        std::vector<std::vector<std::string>> rows; //!< the rows after the header
        /// \return the column's index, or -1
        int Col(const std::string& name) const;
    };

    /**
     * \brief Read a whole CSV file into memory (for small files and tests: the figures read
     *        theirs a row at a time with CsvRowReader, whose rules this follows).
     * \param path its path
     * \param csv the contents (cleared first)
     * \return false if it cannot be read or has no line at all
     */
    static bool ReadCsv(const std::string& path, Csv& csv);

  private:
    /// The gnuplot lines that start a figure: terminal, output, style.
    std::string Preamble(const std::string& name, uint32_t width, uint32_t height) const;
    /// Write NAME.dat and NAME.gp and run gnuplot in dir.
    void Draw(const std::string& dir,
              const std::string& name,
              const std::string& dat,
              const std::string& gp) const;
    /// A figure that says "no data".
    void NoData(const std::string& dir, const std::string& name, const std::string& title) const;
    /// Plot(dir, name), throwing the file-writing errors it meets (caught by PlotAll and Plot)
    bool PlotFigure(const std::string& dir, const std::string& name) const;

    bool PlotSteps(const std::string& dir) const;              //!< steps
    bool PlotCollectives(const std::string& dir) const;        //!< collectives
    bool PlotCdf(const std::string& dir, bool slowdown) const; //!< fct-cdf, slowdown-cdf
    bool PlotBuckets(const std::string& dir) const;            //!< slowdown-buckets
    bool PlotQueues(const std::string& dir) const;             //!< queues
    bool PlotPfc(const std::string& dir) const;                //!< pfc
    bool PlotUtilization(const std::string& dir) const;        //!< utilization
    bool PlotQpRate(const std::string& dir) const;             //!< qp-rate
    std::string TierName(uint32_t tier) const;                 //!< legend name of a tier
    static std::string Quote(const std::string& s);            //!< a gnuplot string
    static std::string Fmt(const char* fmt, double v);         //!< printf one number
    static void WriteFile(const std::string& path, const std::string& text); //!< or throw

    std::string m_format;                 //!< png|svg|pdf
    uint32_t m_topQueues;                 //!< queues drawn
    std::vector<std::string> m_tierNames; //!< per tier
    std::string m_runLabel;               //!< for titles
};

} // namespace ns3

#endif // STUDY_PLOTS_H
