# Where scripts/setup.sh put the reference venvs (PyPI pins of requirements/),
# named as scripts/reference_paths.sh names them: the SHA-256 of the pin file.
# Tests that compare with a library of PyPI (LightGBM, CatBoost, XGBoost 3.x,
# PySpark, pyarrow) run these interpreters, and the JVM side of the Spark tests
# that repository; the library itself never does.
#
#   CALCJIT_REFERENCE_PYTHON  Debian's python3 + requirements/reference.txt
#   CALCJIT_XGBOOST3_PYTHON   Python 3.12 + requirements/xgboost3.txt
#   CALCJIT_MAVEN_REPO        the local Maven repository of requirements/maven/pom.xml
#   CALCJIT_SPARK_CLASSPATH_FILE  Spark's class path in it (one line, ':'-separated),
#                             which calcjit-spark.jar compiles and its tests run against
#
# A venv that is missing is not an error here (a build needs none of it); the
# tests that need it fail and say to run scripts/setup.sh.
if(DEFINED ENV{CALCJIT_CACHE})
  set(_calcjit_cache "$ENV{CALCJIT_CACHE}")
else()
  set(_calcjit_cache "$ENV{HOME}/.cache/calcjit")
endif()

function(_calcjit_venv_python out name pins)
  file(SHA256 "${PROJECT_SOURCE_DIR}/requirements/${pins}" hash)
  string(SUBSTRING "${hash}" 0 12 key)
  set(${out} "${_calcjit_cache}/venv-${name}-${key}/bin/python" PARENT_SCOPE)
  # A new pin reconfigures, so the tests follow the new venv.
  set_property(DIRECTORY "${PROJECT_SOURCE_DIR}" APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
               "${PROJECT_SOURCE_DIR}/requirements/${pins}")
endfunction()

_calcjit_venv_python(CALCJIT_REFERENCE_PYTHON reference reference.txt)
_calcjit_venv_python(CALCJIT_XGBOOST3_PYTHON xgboost3 xgboost3.txt)

file(SHA256 "${PROJECT_SOURCE_DIR}/requirements/maven/pom.xml" _calcjit_maven_hash)
string(SUBSTRING "${_calcjit_maven_hash}" 0 12 _calcjit_maven_key)
set(CALCJIT_MAVEN_REPO "${_calcjit_cache}/maven-${_calcjit_maven_key}")
set(CALCJIT_SPARK_CLASSPATH_FILE "${CALCJIT_MAVEN_REPO}/spark.classpath")
set_property(DIRECTORY "${PROJECT_SOURCE_DIR}" APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
             "${PROJECT_SOURCE_DIR}/requirements/maven/pom.xml")
