"""Fixtures shared by the audit tests: the three example scenarios."""

import pytest

from tests.audit.helpers import example


@pytest.fixture(scope="session")
def modern():
    return example("modern-tactical")


@pytest.fixture(scope="session")
def ww1():
    return example("ww1-operational")


@pytest.fixture(scope="session")
def cc():
    return example("combat-commander")
