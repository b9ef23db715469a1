"""DataFrames: the CLI's binding rules, the same bits as the CLI, the index kept."""

import io

import numpy as np
import pandas as pd
import pytest

import calcjit
from conftest import ITEMS, RANKING, assert_same_bits, csv_columns, run_cli


@pytest.fixture(scope="module")
def df():
    # round_trip: pandas' default float parser is fast but not correctly rounded.
    return pd.read_csv(ITEMS, float_precision="round_trip")


@pytest.fixture(scope="module")
def engine(ranking):
    return ranking.compile()


def test_dataframe_equals_the_cli_bit_for_bit(engine, df, tmp_path):
    out_csv = tmp_path / "out.csv"
    run_cli("eval", RANKING, "--input", ITEMS, "--output", out_csv, "--group-by", "query_id",
            "--keep", "query_id,item_id")
    expected = csv_columns(out_csv)
    frame = engine.evaluate_dataframe(df, group_by="query_id")
    assert list(frame.columns) == engine.outputs
    assert frame.index.equals(df.index)
    for name in engine.outputs:
        values = frame[name].to_numpy()
        assert values.dtype == np.float32
        nan = np.isnan(expected[name])
        assert np.array_equal(np.isnan(values), nan), name
        assert_same_bits(values[~nan], expected[name][~nan], name)


def test_index_outputs_and_group_keys(engine, df):
    indexed = df.set_index("item_id")
    frame = engine.evaluate_dataframe(indexed, group_by="query_id", outputs=["score", "relevance"])
    assert list(frame.columns) == ["score", "relevance"]
    assert frame.index.equals(indexed.index)
    plain = engine.evaluate_dataframe(df, group_by="query_id")
    assert_same_bits(frame["score"].to_numpy(), plain["score"].to_numpy())
    by_array = engine.evaluate_dataframe(df, group_by=df["query_id"].to_numpy(), outputs="score")
    assert_same_bits(by_array["score"].to_numpy(), plain["score"].to_numpy())
    by_text = engine.evaluate_dataframe(df, group_by="query_text", outputs=["score"])
    assert_same_bits(by_text["score"].to_numpy(), plain["score"].to_numpy())
    whole = engine.evaluate_dataframe(df, outputs=["score"])  # one query: other ranks
    assert not np.array_equal(whole["score"].to_numpy(), plain["score"].to_numpy())


def test_a_set_compiles_for_the_outputs_asked(ranking, df):
    frame = ranking.evaluate_dataframe(df, group_by="query_id", outputs=["score"], backend="vm")
    also = calcjit.evaluate_dataframe(ranking, df, group_by="query_id", outputs=["score"])
    assert list(frame.columns) == ["score"]
    assert_same_bits(frame["score"].to_numpy(), also["score"].to_numpy())


def test_vectors_as_one_column_of_sequences(engine, df):
    item_columns = [f"item_emb[{k}]" for k in range(32)]
    packed = df.drop(columns=item_columns)
    packed["item_emb"] = list(df[item_columns].to_numpy())
    expected = engine.evaluate_dataframe(df, group_by="query_id", outputs=["emb_cosine", "score"])
    got = engine.evaluate_dataframe(packed, group_by="query_id", outputs=["emb_cosine", "score"])
    for name in expected:
        assert_same_bits(got[name].to_numpy(), expected[name].to_numpy(), name)


def test_query_inputs_come_from_the_first_row_of_each_query(engine, df):
    changed = df.copy()
    first = changed["query_id"].ne(changed["query_id"].shift())
    changed.loc[~first, "user_price_pref"] = 1e6
    changed.loc[~first, "user_emb[3]"] = -5
    a = engine.evaluate_dataframe(df, group_by="query_id", outputs=["score"])
    b = engine.evaluate_dataframe(changed, group_by="query_id", outputs=["score"])
    assert_same_bits(a["score"].to_numpy(), b["score"].to_numpy())


def test_missing_columns_defaults_and_missing_values(engine, df):
    with pytest.raises(calcjit.Error) as info:
        engine.evaluate_dataframe(df.drop(columns=["price"]), group_by="query_id")
    assert info.value.location == "price" and "no column" in str(info.value)
    with pytest.raises(calcjit.Error, match=r"column 'item_emb\[5\]' is missing"):
        engine.evaluate_dataframe(df.drop(columns=["item_emb[5]"]))
    # A query input without a column takes its default, as in the CLI.
    no_hour = engine.evaluate_dataframe(df.drop(columns=["query_hour"]), group_by="query_id")
    at_noon = df.assign(query_hour=12.0)
    assert_same_bits(no_hour["score"].to_numpy(),
                     engine.evaluate_dataframe(at_noon, group_by="query_id")["score"].to_numpy())
    # Nullable integers: pd.NA is NaN (missing), as an empty CSV cell.
    nullable = df.assign(stock=df["stock"].round().astype("Int64"))
    nullable.loc[3, "stock"] = pd.NA
    floats = df.assign(stock=df["stock"].round())
    floats.loc[3, "stock"] = np.nan
    assert_same_bits(engine.evaluate_dataframe(nullable, group_by="query_id")["score"].to_numpy(),
                     engine.evaluate_dataframe(floats, group_by="query_id")["score"].to_numpy())
    with pytest.raises(TypeError, match="column 'price' has dtype object"):
        engine.evaluate_dataframe(df.assign(price="cheap"))
    with pytest.raises(calcjit.Error, match="not in the DataFrame"):
        engine.evaluate_dataframe(df, group_by="session")


def test_empty_dataframes(engine, df):
    empty = df.iloc[:0]
    assert engine.evaluate_dataframe(empty, outputs=["score"]).shape == (0, 1)
    assert engine.evaluate_dataframe(empty, group_by="query_id").shape == (0, 304)


def test_round_trip_through_the_frame(engine, df):
    """Features joined back onto the data, written as CSV and read again: same bits."""
    frame = engine.evaluate_dataframe(df, group_by="query_id", outputs=["score", "relevance"])
    joined = df[["query_id", "item_id"]].join(frame)
    text = joined.to_csv(index=False, float_format="%.9g")
    again = pd.read_csv(io.StringIO(text), float_precision="round_trip")
    for name in ["score", "relevance"]:
        assert_same_bits(again[name].to_numpy(np.float32), frame[name].to_numpy())


def test_missing_group_ids_form_one_query_as_in_the_cli(engine, df, tmp_path):
    """Empty query_id cells are one query for `calcjit eval --group-by` (equal
    text); read by pandas they are NaN, and consecutive NaN ids are one query too."""
    blanked = df.copy()
    blanked.loc[blanked["query_id"] == 2, "query_id"] = np.nan
    items = tmp_path / "items.csv"
    blanked.to_csv(items, index=False, float_format="%.9g")
    out_csv = tmp_path / "out.csv"
    run_cli("eval", RANKING, "--input", items, "--output", out_csv, "--group-by", "query_id",
            "--outputs", "score")
    expected = csv_columns(out_csv)["score"]
    again = pd.read_csv(items, float_precision="round_trip")
    assert again["query_id"].isna().sum() == 40
    frame = engine.evaluate_dataframe(again, group_by="query_id", outputs=["score"])
    assert_same_bits(frame["score"].to_numpy(), expected)
    plain = engine.evaluate_dataframe(df, group_by="query_id", outputs=["score"])
    assert_same_bits(frame["score"].to_numpy(), plain["score"].to_numpy())
