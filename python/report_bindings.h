// bpeforge._bpeforge's report functions (report_bindings.cc), registered by bindings.cc.
#ifndef BPEFORGE_PYTHON_REPORT_BINDINGS_H_
#define BPEFORGE_PYTHON_REPORT_BINDINGS_H_

#include <pybind11/pybind11.h>

namespace bpeforge::python {

// Adds report, report_html and write_report to the module.
void RegisterReport(pybind11::module_& m);

}  // namespace bpeforge::python

#endif  // BPEFORGE_PYTHON_REPORT_BINDINGS_H_
