#include "python/support.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace bpeforge::python {

PatternArg PatternOf(const std::string& name) {
  PatternArg p;
  p.pattern = Unwrap(ParsePatternOrRegex(name, &p.custom));
  return p;
}

std::string PatternString(Pattern pattern, const std::string& custom) {
  return pattern == Pattern::kCustom ? custom : std::string(PatternName(pattern));
}

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

std::string TypeName(const py::handle& value) {
  return py::str(py::type::of(value).attr("__name__"));
}

[[noreturn]] void BadId(const std::string& value) {
  throw py::value_error("token id " + value + " is " +
                        (value.front() == '-' ? "negative" : "beyond 32 bits") +
                        "; ids are 0 .. 4294967295");
}

// One id: a Python int or anything with __index__ (numpy's integer scalars), not a float.
TokenId IdOf(const py::handle& item) {
  PyObject* index = PyLong_Check(item.ptr()) ? item.inc_ref().ptr() : PyNumber_Index(item.ptr());
  if (index == nullptr) {
    PyErr_Clear();
    throw py::type_error("token ids must be integers, not " + TypeName(item));
  }
  const py::object owned = py::reinterpret_steal<py::object>(index);
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(index, &overflow);
  if (overflow != 0 || v < 0 || v > UINT32_MAX) BadId(py::str(owned));
  return static_cast<TokenId>(v);
}

template <typename T>
void AppendIds(const py::array& array, std::vector<TokenId>* out) {
  const auto typed = py::array_t<T, py::array::c_style | py::array::forcecast>::ensure(array);
  if (!typed) throw py::error_already_set();
  const T* data = typed.data();
  for (py::ssize_t i = 0; i < typed.size(); ++i) {
    if constexpr (std::is_signed_v<T>) {
      if (data[i] < 0) BadId(std::to_string(data[i]));
    }
    if (static_cast<uint64_t>(data[i]) > UINT32_MAX) BadId(std::to_string(data[i]));
    out->push_back(static_cast<TokenId>(data[i]));
  }
}

}  // namespace

std::vector<TokenId> IdsOf(const py::handle& ids) {
  std::vector<TokenId> out;
  if (IsNumpyArray(ids)) {
    const py::array array = py::reinterpret_borrow<py::array>(ids);
    if (array.ndim() != 1) {
      throw py::value_error("token ids must be a one-dimensional array, not " +
                            std::to_string(array.ndim()) + "-dimensional");
    }
    const char kind = array.dtype().kind();
    out.reserve(static_cast<size_t>(array.size()));
    if (kind == 'u') {
      AppendIds<uint64_t>(array, &out);  // as unsigned: 2^63 and above stay themselves
    } else if (kind == 'i') {
      AppendIds<int64_t>(array, &out);
    } else if (kind == 'O') {
      for (const py::handle item : array) out.push_back(IdOf(item));
    } else {
      throw py::type_error("token ids must be integers, not an array of " +
                           std::string(py::str(array.dtype())));
    }
    return out;
  }
  if (PyUnicode_Check(ids.ptr()) || PyBytes_Check(ids.ptr())) {
    throw py::type_error("token ids must be a sequence of int, not " + TypeName(ids));
  }
  if (!py::isinstance<py::iterable>(ids)) {
    throw py::type_error("token ids must be a sequence of int, not " + TypeName(ids));
  }
  if (PyList_Check(ids.ptr()) || PyTuple_Check(ids.ptr())) out.reserve(py::len(ids));
  for (const py::handle item : py::iter(ids)) out.push_back(IdOf(item));
  return out;
}

NumpyIds NumpyIdsOf(const std::string& dtype, size_t id_limit) {
  if (dtype == "uint16") {
    if (id_limit > 65536) {
      throw py::value_error("dtype uint16 is too narrow for this vocabulary: its ids go up to " +
                            std::to_string(id_limit - 1) + "; use uint32");
    }
    return NumpyIds::kUint16;
  }
  if (dtype == "uint32") return NumpyIds::kUint32;
  if (dtype == "int32") return NumpyIds::kInt32;
  if (dtype == "int64") return NumpyIds::kInt64;
  if (dtype == "uint64") return NumpyIds::kUint64;
  throw py::value_error("dtype " + dtype +
                        " cannot hold token ids; use uint16, uint32, int32, int64 or uint64");
}

namespace {

template <typename T>
py::array Concatenated(const std::vector<std::vector<TokenId>>& parts) {
  size_t n = 0;
  for (const std::vector<TokenId>& part : parts) n += part.size();
  py::array_t<T> out(static_cast<py::ssize_t>(n));
  T* data = out.mutable_data();
  {
    py::gil_scoped_release release;
    for (const std::vector<TokenId>& part : parts) {
      data = std::copy(part.begin(), part.end(), data);
    }
  }
  return out;
}

}  // namespace

py::array ConcatenatedToNumpy(const std::vector<std::vector<TokenId>>& parts, NumpyIds type) {
  switch (type) {
    case NumpyIds::kUint16:
      return Concatenated<uint16_t>(parts);
    case NumpyIds::kUint32:
      return Concatenated<uint32_t>(parts);
    case NumpyIds::kInt32:
      return Concatenated<int32_t>(parts);
    case NumpyIds::kInt64:
      return Concatenated<int64_t>(parts);
    case NumpyIds::kUint64:
      return Concatenated<uint64_t>(parts);
  }
  return Concatenated<uint32_t>(parts);
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
