#!/usr/bin/env python3
"""Drives `footstepctl ui` in headless Chromium (Selenium, Debian's chromium and chromium-driver).

    dashboard-browser-test.py admin  --url URL --night-start YYYY-MM-DDTHH:MM --out DIR
    dashboard-browser-test.py reader --url URL --night-start YYYY-MM-DDTHH:MM --out DIR

admin: opens the printed URL, shows the night, plays a clip, rejects a bout (Shift+R) and relabels another event
(3: stomping) with the keyboard, reloads and reads the reviews back from the page, makes an HTML report, and
checks the Now page and a phone-width window. reader: tries to reject an event and reads the message it gets.
Writes a screenshot of each page under DIR and prints one JSON object of what it saw; the Swift test that runs it
checks the store. Chromium runs with TZ=UTC, so --night-start is UTC.
"""
import argparse
import json
import os
import sys
import tempfile
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait


def browser(width, height):
    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     f"--window-size={width},{height}", "--autoplay-policy=no-user-gesture-required",
                     f"--user-data-dir={tempfile.mkdtemp(prefix='fsd-chromium-')}"):
        options.add_argument(argument)
    options.binary_location = "/usr/bin/chromium"
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def wait(driver, condition, seconds=20):
    return WebDriverWait(driver, seconds, poll_frequency=0.05).until(lambda d: condition(d))


def show_night(driver, start):
    """Shows the night starting at `start`; returns the seconds until its events were on the page."""
    began = time.monotonic()
    driver.execute_script("location.hash = '#night'")
    driver.execute_script("document.querySelector('#night-start').value = arguments[0]", start)
    driver.find_element(By.CSS_SELECTOR, "#night-form button").click()
    wait(driver, lambda d: d.execute_script(
        "return document.querySelectorAll('#events tbody tr').length > 0 && !document.querySelector('#detail').hidden"))
    return time.monotonic() - began


def rows(driver):
    """Each event row: id, label, bout, review."""
    return driver.execute_script("""
        return [...document.querySelectorAll('#events tbody tr')].map(r => ({
            index: Number(r.dataset.index), id: Number(r.dataset.id), label: r.cells[1].textContent,
            bout: r.cells[4].textContent, review: r.cells[5].textContent}));""")


def toast(driver):
    wait(driver, lambda d: not d.find_element(By.ID, "toast").get_attribute("hidden"))
    box = driver.find_element(By.ID, "toast")
    return box.text, box.get_attribute("class")


def key(driver, keys):
    driver.find_element(By.TAG_NAME, "body").send_keys(keys)


def admin(args, out):
    driver = browser(1280, 800)
    seen = {}
    try:
        began = time.monotonic()
        driver.get(args.url)
        wait(driver, lambda d: d.execute_script("return document.readyState") == "complete")
        seen["first_page_s"] = time.monotonic() - began
        seen["night_load_s"] = show_night(driver, args.night_start)
        driver.save_screenshot(os.path.join(out, "night.png"))
        events = rows(driver)
        seen["events_shown"] = len(events)

        # Play a clip: the audio element loads it and knows its duration.
        driver.execute_script("Night.select(0); const a = document.querySelector('#clip'); a.preload = 'auto'; a.load();")
        wait(driver, lambda d: d.execute_script(
            "const a = document.querySelector('#clip'); return isFinite(a.duration) && a.duration > 0"))
        seen["clip_event"] = events[0]["id"]
        seen["clip_duration"] = driver.execute_script("return document.querySelector('#clip').duration")

        # Reject a whole bout with the keyboard (Shift+R on one of its steps).
        step = next(e for e in events if e["bout"])
        seen["bout"] = int(step["bout"].lstrip("#"))
        seen["bout_events"] = [e["id"] for e in events if e["bout"] == step["bout"]]
        driver.execute_script("Night.select(arguments[0])", step["index"])
        key(driver, "R")
        seen["bout_toast"] = toast(driver)
        wait(driver, lambda d: all(r["review"] == "rejected" for r in rows(d) if r["bout"] == step["bout"]))

        # Relabel one event outside the bout (3: stomping).
        other = next(e for e in rows(driver) if not e["bout"] and e["review"] == "" and e["label"] != "stomping")
        seen["relabelled"] = other["id"]
        driver.execute_script("Night.select(arguments[0])", other["index"])
        key(driver, "3")
        wait(driver, lambda d: any(r["id"] == other["id"] and r["label"] == "stomping" for r in rows(d)))

        # Reload: the reviews come back from the daemon.
        driver.refresh()
        seen["reload_night_load_s"] = show_night(driver, args.night_start)
        after = {r["id"]: r for r in rows(driver)}
        seen["after_reload"] = {
            "bout_rejected": all(after[i]["review"] == "rejected" for i in seen["bout_events"]),
            "relabelled": after[other["id"]]["label"], "relabelled_review": after[other["id"]]["review"],
        }
        driver.save_screenshot(os.path.join(out, "night-reviewed.png"))

        # Now: the live meter moves.
        began = time.monotonic()
        driver.execute_script("location.hash = '#now'")
        wait(driver, lambda d: d.find_element(By.ID, "laf").text not in ("", "–")
             and d.find_element(By.ID, "state").text not in ("", "–"))
        seen["now_load_s"] = time.monotonic() - began
        seen["now_state"] = driver.find_element(By.ID, "state").text
        driver.save_screenshot(os.path.join(out, "now.png"))

        # Reports: an HTML report for the night leaves the bout out and lists it.
        driver.execute_script("location.hash = '#reports'")
        driver.execute_script("""
            document.querySelector('#report-from').value = arguments[0];
            const end = new Date(new Date(arguments[0] + 'Z').getTime() + 16 * 3600e3).toISOString().slice(0, 16);
            document.querySelector('#report-to').value = end;
            document.querySelector('#report-format').value = 'html';""", args.night_start)
        driver.find_element(By.CSS_SELECTOR, "#report-form button").click()
        wait(driver, lambda d: not d.find_element(By.ID, "report-link").get_attribute("hidden"), 60)
        html = driver.execute_async_script("""
            const done = arguments[arguments.length - 1];
            fetch(document.querySelector("#report-link").href).then(r => r.text()).then(done, e => done("ERROR " + e));""")
        seen["report_name"] = driver.find_element(By.ID, "report-link").get_attribute("download")
        seen["report_lists_rejected"] = "<h3>Rejected on review</h3>" in html
        seen["report_rejected_ids"] = [i for i in seen["bout_events"] if f"<td>{i}</td>" in html.split("<h3>Rejected on review</h3>")[-1]]
        driver.save_screenshot(os.path.join(out, "reports.png"))

        # A phone-width window: nothing runs off the side.
        driver.set_window_size(390, 844)
        driver.execute_script("location.hash = '#night'")
        time.sleep(0.3)
        seen["phone_overflow_px"] = driver.execute_script(
            "return document.documentElement.scrollWidth - window.innerWidth")
        driver.save_screenshot(os.path.join(out, "night-phone.png"))
        seen["console_errors"] = [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"
                                  and "favicon" not in entry["message"]]
    finally:
        driver.quit()
    return seen


def reader(args, out):
    driver = browser(1280, 800)
    try:
        driver.get(args.url)
        show_night(driver, args.night_start)
        driver.execute_script("Night.select(0)")
        first = rows(driver)[0]
        key(driver, "r")
        text, kind = toast(driver)
        driver.save_screenshot(os.path.join(out, "reader-refused.png"))
        return {"event": first["id"], "toast": text, "toast_class": kind, "review_after": rows(driver)[0]["review"]}
    finally:
        driver.quit()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("role", choices=["admin", "reader"])
    parser.add_argument("--url", required=True)
    parser.add_argument("--night-start", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    seen = admin(args, args.out) if args.role == "admin" else reader(args, args.out)
    json.dump(seen, sys.stdout)
    print()


if __name__ == "__main__":
    main()
