// The report functions of bpeforge._bpeforge (MakeReport, ReportHtml, WriteReport), which
// python/bpeforge/report.py wraps. A report runs with the GIL released and stops on Ctrl-C.
#include "python/report_bindings.h"

#include <pybind11/stl.h>

#include <string>
#include <tuple>
#include <vector>

#include "bpeforge/bpeforge.h"
#include "python/support.h"

namespace bpeforge::python {
namespace {

// (name, path, tokenizer) for each tokenizer; the report's JSON text. `progress` is None or
// a reporter called as report(phase, done, total, unit, documents) (bpeforge._progress).
std::string Report(const std::vector<std::tuple<std::string, std::string, Tokenizer>>& tokenizers,
                   const std::vector<std::string>& inputs, const std::vector<size_t>& sizes,
                   const std::vector<std::string>& jsonl_fields, const std::string& group_by,
                   size_t max_groups, bool skip_bad_records, int threads, size_t list_length,
                   const py::object& progress) {
  std::vector<ReportTokenizer> given;
  for (const auto& [name, path, tokenizer] : tokenizers) given.emplace_back(tokenizer, name, path);
  ReportOptions options;
  options.sizes = sizes;
  options.jsonl_fields = jsonl_fields;
  options.group_by = group_by;
  options.max_groups = max_groups;
  options.input.skip_bad_records = skip_bad_records;
  options.threads = threads;
  options.list_length = list_length;
  ProgressRelay relay(progress);
  options.progress_figures = relay.Sink();
  return Unwrap(RunInterruptibly<absl::StatusOr<std::string>>(
      [&](const std::atomic<bool>* cancel) -> absl::StatusOr<std::string> {
        ReportOptions o = options;
        o.cancel = cancel;
        absl::StatusOr<std::string> json = MakeReport(given, inputs, o);
        if (json.ok() && cancel->load()) return absl::CancelledError("the report was cancelled");
        return json;
      },
      &relay));
}

}  // namespace

void RegisterReport(py::module_& m) {
  m.def("report", &Report, py::arg("tokenizers"), py::arg("inputs"), py::arg("sizes"),
        py::arg("jsonl_fields"), py::arg("group_by"), py::arg("max_groups"),
        py::arg("skip_bad_records"), py::arg("threads"), py::arg("list_length"),
        py::arg("progress"));
  m.def("report_html", [](const std::string& json) { return Unwrap(ReportHtml(json)); });
  m.def("write_report", [](const std::string& json, const std::string& dir) {
    absl::Status written;
    {
      py::gil_scoped_release release;
      written = WriteReport(json, dir);
    }
    Check(written);
  });
}

}  // namespace bpeforge::python
