import Foundation

/// The streaming form of ``ReportJSON``: every member written by hand in the byte
/// order of `.sortedKeys`, so the output is the very bytes `ReportJSON.encoder` gives
/// (a test holds the two together), with the events taken one at a time from the
/// document instead of an array of 100,000 `Event` values.
extension ReportJSON {
    /// Writes this document with `events` (mapped through `clock`) as its `events` member.
    func write(to w: PrettyJSONWriter, events: [ReportEvent], clock: LocalClock) {
        w.object {
            w.key("address").string(address)
            w.key("calibration")
            calibration.write(to: w)
            if let coverage {
                w.key("coverage")
                coverage.write(to: w)
            }
            w.key("days").array(days) { day in
                w.object {
                    w.key("date").string(day.date)
                    w.key("footsteps").int(day.footsteps)
                    w.key("other").int(day.other)
                }
            }
            w.key("diary").array(diary) { item in
                w.object {
                    w.member("durationSeconds", item.durationSeconds)
                    w.key("kind").string(item.kind)
                    w.key("text").string(item.text)
                    w.key("time").date(item.time)
                    w.member("writtenAt", item.writtenAt)
                }
            }
            if let equipment {
                w.key("equipment")
                equipment.write(to: w)
            }
            w.key("events").array(events) { ReportJSON.Event($0, clock: clock).write(to: w) }
            w.key("generatedAt").date(generatedAt)
            w.key("hourlyLevels").array(hourlyLevels) { $0.write(to: w) }
            if let integrity {
                w.key("integrity")
                integrity.write(to: w)
            }
            w.key("nights").array(nights) { $0.write(to: w) }
            w.key("notes").string(notes)
            w.key("period")
            period.write(to: w)
            w.key("rejectedEvents").array(rejectedEvents) { $0.write(to: w) }
            w.key("rules").array(rules) { $0.write(to: w) }
            w.key("schema").string(schema)
            w.key("schemaVersion").int(schemaVersion)
            w.key("softwareVersion").string(softwareVersion)
            w.key("source").string(source)
            w.key("summary")
            summary.write(to: w)
            w.key("title").string(title)
        }
    }
}

extension ReportJSON.Period {
    func write(to w: PrettyJSONWriter) {
        w.object {
            w.key("from").date(from)
            w.key("quietHours").string(quietHours)
            w.member("sessionId", sessionId)
            w.key("timeZone").string(timeZone)
            w.key("to").date(to)
        }
    }
}

extension ReportJSON.Calibration {
    func write(to w: PrettyJSONWriter) {
        w.object {
            w.key("label").string(label)
            w.member("measuredAt", measuredAt)
            w.member("method", method)
            w.member("offsetDB", offsetDB)
            w.member("reference", reference)
            w.key("status").string(status)
        }
    }
}

extension ReportJSON.Levels {
    func write(to w: PrettyJSONWriter) {
        w.object {
            w.key("la90").double(la90)
            w.key("laeq").double(laeq)
            w.key("lafMax").double(lafMax)
            w.key("lceq").double(lceq)
            w.key("seconds").double(seconds)
            w.key("start").date(start)
        }
    }
}

extension ReportJSON.BusyHour {
    func write(to w: PrettyJSONWriter) {
        w.object {
            w.key("footsteps").int(footsteps)
            w.key("start").date(start)
        }
    }
}

extension ReportJSON.Summary {
    func write(to w: PrettyJSONWriter) {
        w.object {
            w.key("bouts")
            bouts.write(to: w)
            w.key("busiestHours").array(busiestHours) { $0.write(to: w) }
            w.key("events").int(events)
            w.key("eventsByKind").object(eventsByKind)
            w.key("eventsInQuietHours").int(eventsInQuietHours)
            w.key("footsteps").int(footsteps)
            w.key("footstepsByHourOfDay").array(footstepsByHourOfDay) { w.int($0) }
            w.key("footstepsByType").object(footstepsByType)
            w.key("footstepsInQuietHours").int(footstepsInQuietHours)
            if let levels {
                w.key("levels")
                levels.write(to: w)
            }
            w.key("nights").int(nights)
            w.key("nightsDisturbed").int(nightsDisturbed)
            w.key("otherEvents").int(otherEvents)
            w.member("peakHour", peakHour)
        }
    }
}

extension ReportJSON.Bouts {
    func write(to w: PrettyJSONWriter) {
        w.object {
            w.key("count").int(count)
            w.member("longestSeconds", longestSeconds)
            w.member("longestStart", longestStart)
            w.member("longestSteps", longestSteps)
            w.member("meanCadence", meanCadence)
            w.key("running").int(running)
            w.key("steps").int(steps)
            w.key("walking").int(walking)
        }
    }
}

extension ReportJSON.Night {
    func write(to w: PrettyJSONWriter) {
        w.object {
            w.key("bouts").int(bouts)
            if let busiestHour {
                w.key("busiestHour")
                busiestHour.write(to: w)
            }
            w.key("date").string(date)
            w.key("end").date(end)
            w.member("firstEvent", firstEvent)
            w.key("footsteps").int(footsteps)
            w.member("lastEvent", lastEvent)
            if let levels {
                w.key("levels")
                levels.write(to: w)
            }
            w.member("loudestLAFmax", loudestLAFmax)
            w.key("notRecorded").bool(notRecorded)
            w.key("otherEvents").int(otherEvents)
            w.key("partial").bool(partial)
            w.member("recordedSeconds", recordedSeconds)
            w.key("review").object {
                w.key("confirmed").int(review.confirmed)
                w.key("rejected").int(review.rejected)
                w.key("reviewers").array(review.reviewers) { w.string($0) }
                w.key("unreviewed").int(review.unreviewed)
            }
            w.key("start").date(start)
            if let worstHour {
                w.key("worstHour")
                worstHour.write(to: w)
            }
        }
    }
}

extension ReportJSON.WorstHour {
    func write(to w: PrettyJSONWriter) {
        w.object {
            w.key("footsteps").int(footsteps)
            w.key("laeq").double(laeq)
            w.key("minutes")
            w.array(minutes) { minute in
                w.object {
                    w.member("eventLCFmax", minute.eventLCFmax)
                    w.key("footsteps").int(minute.footsteps)
                    w.key("laeq").double(minute.laeq)
                    w.key("lafMax").double(minute.lafMax)
                    w.key("lceq").double(minute.lceq)
                    w.key("otherEvents").int(minute.otherEvents)
                    w.key("seconds").double(minute.seconds)
                    w.key("start").date(minute.start)
                }
            }
            w.key("start").date(start)
        }
    }
}

extension ReportJSON.Coverage {
    func write(to w: PrettyJSONWriter) {
        w.object {
            w.key("gaps").array(gaps) { gap in
                w.object {
                    w.key("end").date(gap.end)
                    w.key("reason").string(gap.reason)
                    w.key("sessionId").int(gap.sessionId)
                    w.key("start").date(gap.start)
                }
            }
            w.key("nightsNotRecorded").array(nightsNotRecorded) { w.string($0) }
            w.key("quietHoursSeconds").double(quietHoursSeconds)
            w.key("recordedQuietHoursSeconds").double(recordedQuietHoursSeconds)
            w.key("recordedSeconds").double(recordedSeconds)
            w.key("sessions").array(sessions) { session in
                w.object {
                    w.key("end").date(session.end)
                    if let endReason = session.endReason { w.key("endReason").string(endReason) }
                    w.key("id").int(session.id)
                    w.key("start").date(session.start)
                    w.key("status").string(session.status)
                    w.key("title").string(session.title)
                }
            }
            w.key("stops").array(stops) { stop in
                w.object {
                    if let end = stop.end { w.key("end").date(end) }
                    w.key("interrupted").bool(stop.interrupted)
                    if let next = stop.nextSessionId { w.key("nextSessionId").int(next) }
                    w.key("reason").string(stop.reason)
                    w.key("sessionId").int(stop.sessionId)
                    w.key("start").date(stop.start)
                }
            }
        }
    }
}

extension ReportJSON.Equipment {
    func write(to w: PrettyJSONWriter) {
        w.object {
            w.key("calibrations").array(calibrations) { calibration in
                w.object {
                    w.key("fromConfiguration").bool(calibration.fromConfiguration)
                    w.key("measuredAt").date(calibration.measuredAt)
                    w.key("method").string(calibration.method)
                    w.key("offsetDB").double(calibration.offsetDB)
                    w.key("reference").string(calibration.reference)
                }
            }
            w.key("devices").array(devices) { device in
                w.object {
                    w.key("channels").int(device.channels)
                    w.key("name").string(device.name)
                    w.key("sampleRate").int(device.sampleRate)
                    w.key("sessions").int(device.sessions)
                }
            }
            w.key("microphone").string(microphone)
            w.key("noiseFloors").array(noiseFloors) { floor in
                w.object {
                    w.key("date").string(floor.date)
                    w.key("la90").double(floor.la90)
                }
            }
            w.key("placement").string(placement)
            w.key("warnings").array(warnings) { w.string($0) }
        }
    }
}

extension ReportJSON.Integrity {
    func write(to w: PrettyJSONWriter) {
        w.object {
            w.key("checkedEvents").int(checkedEvents)
            w.key("command").string(command)
            w.key("headEventId").int(headEventId)
            w.key("headHash").string(headHash)
            w.key("intact").bool(intact)
            w.key("problems").int(problems)
            w.key("verifiedAt").date(verifiedAt)
        }
    }
}

extension ReportJSON.Rule {
    func write(to w: PrettyJSONWriter) {
        w.object {
            w.key("description").string(description)
            w.key("exceedanceCount").int(exceedanceCount)
            w.key("exceedances").array(exceedances) { exceedance in
                w.object {
                    w.key("cause").string(exceedance.cause)
                    w.key("time").date(exceedance.time)
                    w.key("value").double(exceedance.value)
                }
            }
            w.key("judgeable").bool(judgeable)
            w.key("metric").string(metric)
            w.key("minimumPerHour").int(minimumPerHour)
            w.key("name").string(name)
            w.member("nightThreshold", nightThreshold)
            w.key("perNight").object(perNight)
            w.key("threshold").double(threshold)
            w.key("verdict").string(verdict)
            w.key("window").string(window)
        }
    }
}

extension ReportJSON.Event {
    func write(to w: PrettyJSONWriter) {
        w.object {
            w.member("clipPath", clipPath)
            w.member("clipSha256", clipSha256)
            w.key("confidence").double(confidence)
            w.key("duration").double(duration)
            w.member("id", id)
            w.member("intensity", intensity)
            w.key("kind").string(kind)
            w.key("laMax").double(laMax)
            w.member("lcMax", lcMax)
            w.key("localTime").string(localTime)
            w.key("notes").string(notes)
            if let review {
                w.key("review").object {
                    w.key("reason").string(review.reason)
                    w.key("reviewer").string(review.reviewer)
                    w.key("verdict").string(review.verdict)
                }
            }
            w.member("revisedFrom", revisedFrom)
            w.member("sel", sel)
            w.member("sessionId", sessionId)
            w.key("timestamp").date(timestamp)
            w.key("type").string(type)
        }
    }
}
