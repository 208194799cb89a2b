"""Exported images and books (issue 22): the input's format unless told, files any user may read
(as the umask allows), the scan's DPI and colour profile kept, no EXIF orientation or GPS carried
over, and solved.pdf a page at a time."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from PIL import ExifTags, Image, ImageCms, JpegImagePlugin

import cli
from cli import ExitCode
from outputs import encode_image, image_suffix
from vision.imageio import ImageInfo, load_image, read_image_info

from conftest import SAMPLES

_GPS = ExifTags.IFD.GPSInfo
_ORIENTATION = 0x0112


def _run(argv: list, capsys) -> int:
    code = cli.main(["-q", *map(str, argv)])
    capsys.readouterr()
    return code


def _kind(path: Path) -> str:
    with Image.open(path) as im:
        return im.format


def _photo(path: Path, sample: str = "site_5x5.png", **save) -> Path:
    """A sample saved as another file (JPEG, WebP, ...) with what ``save`` gives Pillow."""
    Image.open(SAMPLES / sample).convert("RGB").save(path, **save)
    return path


@pytest.fixture
def restore_umask():
    """The test may set the process's umask: the old one comes back after it."""
    old = os.umask(0o022)
    os.umask(old)
    yield
    os.umask(old)


# ---------------------------------------------------------------------------------------------
# Which format


def test_a_jpeg_photo_gives_a_jpeg_with_its_subsampling_and_a_png_a_png(tmp_path, capsys, monkeypatch):
    jpeg = _photo(tmp_path / "photo.jpg", quality=95, subsampling=0)  # 4:4:4, as some cameras write
    png = tmp_path / "scan.png"
    shutil.copy(SAMPLES / "site_5x5.png", png)
    monkeypatch.chdir(tmp_path)
    assert _run(["solve", jpeg], capsys) == ExitCode.ok
    assert _run(["solve", png], capsys) == ExitCode.ok
    assert _kind(tmp_path / "photo.solved.jpg") == "JPEG"
    with Image.open(tmp_path / "photo.solved.jpg") as im:
        assert JpegImagePlugin.get_sampling(im) == 0
    assert read_image_info(tmp_path / "photo.solved.jpg").jpeg_quality == 90
    assert _kind(tmp_path / "scan.solved.png") == "PNG"


def test_o_decides_by_its_suffix_and_format_names_the_default(tmp_path, capsys, monkeypatch):
    jpeg = _photo(tmp_path / "photo.jpg", quality=90)
    monkeypatch.chdir(tmp_path)
    assert _run(["solve", jpeg, "-o", tmp_path / "as.png"], capsys) == ExitCode.ok
    assert _run(["solve", jpeg, "-o", tmp_path / "as.tif"], capsys) == ExitCode.ok
    assert _run(["solve", SAMPLES / "site_5x5.png", "--format", "webp"], capsys) == ExitCode.ok
    assert _run(["solve", SAMPLES / "site_5x5.png", "--format", "jpg", "-o", tmp_path / "x.jpeg"],
                capsys) == ExitCode.ok
    assert [_kind(tmp_path / n) for n in ("as.png", "as.tif", "site_5x5.solved.webp", "x.jpeg")] == [
        "PNG", "TIFF", "WEBP", "JPEG"]
    # A name whose suffix names no image format, or says another format than --format: misuse, no work done.
    assert _run(["solve", jpeg, "-o", tmp_path / "as.gif"], capsys) == ExitCode.bad_args
    assert _run(["solve", jpeg, "-o", tmp_path / "y.png", "--format", "jpg"], capsys) == ExitCode.bad_args
    assert not (tmp_path / "as.gif").exists() and not (tmp_path / "y.png").exists()


def test_heic_as_pillow_names_it_gives_a_jpeg():
    assert image_suffix(ImageInfo(format="HEIF")) == ".jpg"


def test_a_heic_photo_gives_a_jpeg(tmp_path, capsys, monkeypatch):
    pytest.importorskip("pi_heif", reason="reading HEIC needs the optional pi-heif (pip install -e .[heif])")
    # pi-heif only decodes: the photo is written with pillow-heif's encoder, where installed.
    pillow_heif = pytest.importorskip("pillow_heif", reason="writing a HEIC photo needs pillow-heif")
    heic = tmp_path / "phone.heic"
    pillow_heif.from_pillow(Image.open(SAMPLES / "site_5x5.png").convert("RGB")).save(heic, quality=90)
    assert read_image_info(heic).format == "HEIF"
    monkeypatch.chdir(tmp_path)
    assert _run(["solve", heic], capsys) == ExitCode.ok
    assert _kind(tmp_path / "phone.solved.jpg") == "JPEG"


def test_a_phone_photo_as_jpeg_is_not_much_larger_than_the_photo():
    photo = SAMPLES / "guardian1244_photo_a.jpg"  # 2.5 MB, an iPhone's JPEG at quality 97
    data = encode_image(load_image(photo), ".jpg", read_image_info(photo))
    assert len(data) <= 1.5 * photo.stat().st_size


# ---------------------------------------------------------------------------------------------
# Permissions


@pytest.mark.parametrize("mask, mode", [(0o022, 0o644), (0o077, 0o600)])
def test_written_files_follow_the_umask(tmp_path, capsys, restore_umask, mask, mode):
    os.umask(mask)
    assert _run(["solve", SAMPLES / "site_5x5.png", "-o", tmp_path / "solved.png"], capsys) == ExitCode.ok
    assert _run(["batch", SAMPLES / "site_5x5.png", "--out", tmp_path / "out", "--jobs", "1", "--pdf"],
                capsys) == ExitCode.ok
    files = [tmp_path / "solved.png", *(tmp_path / "out").iterdir()]
    assert len(files) == 8  # and the batch's image, .txt, .json, .result.json, summary.csv/.json, solved.pdf
    assert {p.name: oct(p.stat().st_mode & 0o777) for p in files} == {p.name: oct(mode) for p in files}


# ---------------------------------------------------------------------------------------------
# What the scan carries


def test_dpi_and_colour_profile_are_kept(tmp_path, capsys):
    scan = tmp_path / "scan.png"
    Image.open(SAMPLES / "site_7x7.png").save(scan, dpi=(300, 300))
    srgb = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    photo = _photo(tmp_path / "photo.jpg", "site_7x7.png", dpi=(300, 300), icc_profile=srgb)
    assert _run(["solve", scan, "-o", tmp_path / "scan.out.png"], capsys) == ExitCode.ok
    assert _run(["solve", photo, "-o", tmp_path / "photo.out.jpg"], capsys) == ExitCode.ok
    # a real profile: the Wikipedia sample carries its author's display profile
    assert _run(["solve", SAMPLES / "wikipedia_8x8.png", "-o", tmp_path / "wiki.png"], capsys) == ExitCode.ok
    for name in ("scan.out.png", "photo.out.jpg"):
        assert read_image_info(tmp_path / name).dpi == pytest.approx((300, 300), abs=0.01)
    assert read_image_info(tmp_path / "photo.out.jpg").icc_profile == srgb
    wiki = read_image_info(SAMPLES / "wikipedia_8x8.png")
    assert wiki.icc_profile is not None and read_image_info(tmp_path / "wiki.png").icc_profile == wiki.icc_profile


def test_exif_orientation_is_applied_once_and_gps_is_not_copied(tmp_path, capsys):
    upright = Image.open(SAMPLES / "site_7x7.png").convert("RGB")
    exif = Image.Exif()
    exif[_ORIENTATION] = 6  # the camera held sideways: viewers turn the stored pixels a quarter clockwise
    exif.get_ifd(_GPS).update({ExifTags.GPS.GPSLatitudeRef: "N", ExifTags.GPS.GPSLatitude: (51.0, 30.0, 26.0),
                               ExifTags.GPS.GPSLongitudeRef: "W", ExifTags.GPS.GPSLongitude: (0.0, 7.0, 39.0)})
    photo = tmp_path / "photo.jpg"
    upright.transpose(Image.Transpose.ROTATE_90).save(photo, quality=95, exif=exif, dpi=(300, 150))
    with Image.open(photo) as im:  # the input does carry both
        assert im.getexif()[_ORIENTATION] == 6 and im.getexif().get_ifd(_GPS)
    assert _run(["solve", photo, "-o", tmp_path / "out.jpg"], capsys) == ExitCode.ok
    with Image.open(tmp_path / "out.jpg") as out:
        assert out.size == upright.size  # upright pixels ...
        assert out.getexif().get(_ORIENTATION, 1) == 1  # ... that no viewer turns again
        assert not out.getexif().get_ifd(_GPS) and b"GPS" not in (out.info.get("exif") or b"")
        assert out.info["dpi"] == pytest.approx((150, 300))  # the file's columns were its rows


# ---------------------------------------------------------------------------------------------
# Batch: PDF pages, a book


def test_batch_pages_keep_their_format_and_dpi_and_the_book_has_every_page(tmp_path, capsys):
    import pypdfium2 as pdfium

    inbox = tmp_path / "in"
    inbox.mkdir()
    _photo(inbox / "photo.jpg", "site_7x7.png", quality=92)
    pages = [Image.open(SAMPLES / n).convert("RGB") for n in ("site_5x5.png", "site_5x5_b.png")]
    pages[0].save(inbox / "book.pdf", save_all=True, append_images=pages[1:], resolution=72)
    out = tmp_path / "out"
    args = ["batch", inbox, "--out", out, "--jobs", "1", "--dpi", "144", "--pdf"]
    assert _run(args, capsys) == ExitCode.ok
    assert [_kind(out / n) for n in ("photo.jpg", "book-p1.png", "book-p2.png")] == ["JPEG", "PNG", "PNG"]
    assert read_image_info(out / "book-p1.png").dpi == pytest.approx((144, 144), abs=0.01)
    records = [json.loads((out / f"{s}.result.json").read_text())["image"] for s in ("book-p1", "photo")]
    assert records == ["book-p1.png", "photo.jpg"]

    def book_pages() -> list[tuple[float, float]]:
        pdf = pdfium.PdfDocument(out / "solved.pdf")
        try:
            return [pdf[i].get_size() for i in range(len(pdf))]
        finally:
            pdf.close()

    # Page order, each page at its print size: a 144-dpi page (pixels * 72/144); the photo gave no DPI: 72.
    sizes = book_pages()
    assert len(sizes) == 3
    assert (out / "photo.jpg").read_bytes() in (out / "solved.pdf").read_bytes()  # the JPEG as it is
    assert sizes[0] == pytest.approx((pages[0].width, pages[0].height), abs=0.5)
    assert sizes[2] == pytest.approx(Image.open(SAMPLES / "site_7x7.png").size, abs=0.5)
    # A re-run skips the done pages and still finds their images for the book.
    (out / "solved.pdf").unlink()
    assert _run(args, capsys) == ExitCode.ok
    assert len(book_pages()) == 3
    # --format for a batch
    assert _run(["batch", SAMPLES / "site_5x5.png", "--out", out / "webp", "--jobs", "1", "--format", "webp"],
                capsys) == ExitCode.ok
    assert _kind(out / "webp" / "site_5x5.webp") == "WEBP"


def test_the_web_pages_download_follows_the_upload(tmp_path):
    pytest.importorskip("multipart", reason="uploads need python-multipart (pip install -e .)")
    pytest.importorskip("httpx", reason="the API tests need httpx")
    import warnings

    with warnings.catch_warnings():  # starlette suggests httpx2 for its TestClient; httpx still works
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient
    from web.app import create_app

    photo = _photo(tmp_path / "photo.jpg", dpi=(300, 300), quality=95)
    with TestClient(create_app()) as client:
        read = client.post("/api/read", files={"file": ("photo.jpg", photo.read_bytes(), "image/jpeg")}).json()
        image = client.get(read["annotated"])
    assert image.headers["content-type"] == "image/jpeg"
    # the page's link says kakuro-solved.png; the file name sent with the image decides
    assert 'filename="kakuro-solved.jpg"' in image.headers["content-disposition"]
    (tmp_path / "download.jpg").write_bytes(image.content)
    assert _kind(tmp_path / "download.jpg") == "JPEG"
    assert read_image_info(tmp_path / "download.jpg").dpi == (300, 300)
