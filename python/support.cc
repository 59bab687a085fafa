#include "python/support.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace bpeforge::python {

// absl::Status -> the Python exception a user would expect.
[[noreturn]] void Throw(const absl::Status& status) {
  const std::string message(status.message());
  // A failed file-system call: OSError(errno, strerror, path), which Python turns into
  // FileNotFoundError, PermissionError, IsADirectoryError, ... by the errno.
  if (const auto err = status.GetPayload(kErrnoPayload)) {
    const int code = std::atoi(std::string(*err).c_str());
    const auto path = status.GetPayload(kPathPayload);
    py::object filename = path ? py::object(py::str(std::string(*path))) : py::none();
    PyErr_SetObject(PyExc_OSError,
                    py::make_tuple(code, std::string(std::strerror(code)), filename).ptr());
    throw py::error_already_set();
  }
  PyObject* type = PyExc_RuntimeError;
  switch (status.code()) {
    case absl::StatusCode::kNotFound:
      type = PyExc_FileNotFoundError;
      break;
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kOutOfRange:
      type = PyExc_ValueError;
      break;
    case absl::StatusCode::kPermissionDenied:
      type = PyExc_PermissionError;
      break;
    case absl::StatusCode::kCancelled:
      type = PyExc_KeyboardInterrupt;
      break;
    case absl::StatusCode::kResourceExhausted:
      type = PyExc_MemoryError;
      break;
    case absl::StatusCode::kInternal:
    case absl::StatusCode::kUnavailable:
    case absl::StatusCode::kDataLoss:
      type = PyExc_OSError;
      break;
    default:
      break;
  }
  PyErr_SetString(type, message.c_str());
  throw py::error_already_set();
}

// A str as UTF-8 without a copy; valid while the str lives. Surrogates raise
// UnicodeEncodeError, as str.encode() does.
absl::string_view Utf8(const py::handle& text, const char* what) {
  if (!PyUnicode_Check(text.ptr())) {
    const bool bytes = PyBytes_Check(text.ptr()) || PyByteArray_Check(text.ptr());
    throw py::type_error(std::string(what) + " must be str, not " +
                         std::string(py::str(py::type::of(text).attr("__name__"))) +
                         (bytes ? " (decode the bytes, or open the file in text mode)" : ""));
  }
  Py_ssize_t size = 0;
  const char* data = PyUnicode_AsUTF8AndSize(text.ptr(), &size);
  if (data == nullptr) throw py::error_already_set();
  return absl::string_view(data, static_cast<size_t>(size));
}

std::string BytesOf(const py::handle& value, const char* what) {
  if (!PyBytes_Check(value.ptr())) {
    throw py::type_error(std::string(what) + " must be bytes, not " +
                         std::string(py::str(py::type::of(value).attr("__name__"))));
  }
  return std::string(py::reinterpret_borrow<py::bytes>(value));
}

namespace {

// Whether `value` is a numpy array. Without numpy imported it cannot be one, and asking pybind11
// would import numpy, which is optional: decode() failed with ModuleNotFoundError without it.
bool IsNumpyArray(const py::handle& value) {
  PyObject* numpy = PyDict_GetItemString(PyImport_GetModuleDict(), "numpy");  // borrowed
  if (numpy == nullptr || numpy == Py_None) return false;
  return py::isinstance<py::array>(value);
}

}  // namespace

// Ids from a list, tuple or numpy array of integers; a value that is no token id is
// ValueError (the id may still be missing from the vocabulary: that is checked later).
std::vector<TokenId> IdsOf(const py::handle& ids) {
  std::vector<TokenId> out;
  if (IsNumpyArray(ids)) {
    auto array = py::array_t<int64_t, py::array::c_style | py::array::forcecast>::ensure(ids);
    if (!array) throw py::error_already_set();
    out.reserve(static_cast<size_t>(array.size()));
    const int64_t* data = array.data();
    for (py::ssize_t i = 0; i < array.size(); ++i) {
      if (data[i] < 0 || data[i] > UINT32_MAX) {
        throw py::value_error("token id " + std::to_string(data[i]) + " is out of range");
      }
      out.push_back(static_cast<TokenId>(data[i]));
    }
    return out;
  }
  for (const py::handle& item : py::iter(ids)) {
    if (!PyLong_Check(item.ptr())) {
      throw py::type_error("token ids must be int, not " +
                           std::string(py::str(py::type::of(item).attr("__name__"))));
    }
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(item.ptr(), &overflow);
    if (overflow != 0 || v < 0 || v > UINT32_MAX) {
      throw py::value_error("token id " + std::string(py::str(item)) + " is out of range");
    }
    out.push_back(static_cast<TokenId>(v));
  }
  return out;
}

py::list IdList(const std::vector<TokenId>& ids) {
  py::list out(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    PyObject* v = PyLong_FromUnsignedLong(ids[i]);
    if (v == nullptr) throw py::error_already_set();
    PyList_SET_ITEM(out.ptr(), static_cast<py::ssize_t>(i), v);
  }
  return out;
}

py::dict VocabDict(const Vocab& vocab) {
  py::dict out;
  for (size_t id = 0; id < vocab.size(); ++id) {
    if (!vocab[id].empty()) out[py::int_(id)] = py::bytes(vocab[id]);
  }
  return out;
}

py::list MergeList(const Merges& merges) {
  py::list out;
  for (const Merge& m : merges) out.append(py::make_tuple(py::bytes(m.first), py::bytes(m.second)));
  return out;
}

}  // namespace bpeforge::python
